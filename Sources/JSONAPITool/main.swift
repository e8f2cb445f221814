print("jsonapi")
