import Foundation

/// `jsonapi`: inspect JSON:API documents and fetch them from servers.
let usage = """
    usage: jsonapi COMMAND [ARGUMENTS]
    commands:
      inspect FILE|- [OPTIONS]    decode a document and print it normalized; --strict checks the spec's MUST rules
                                  (of a response, or of a request body with --request; see jsonapi inspect --help)
      get URL [OPTIONS]           fetch a document (see jsonapi get --help)
    """

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
switch arguments.first {
case "inspect": status = InspectCommand.run(Array(arguments.dropFirst()))
case "get": status = await GetCommand.run(Array(arguments.dropFirst()))
case "-h", "--help", "help":
    Output.standardOutput(usage)
    status = Output.ExitCode.success
case let command?:
    Output.standardError("jsonapi: unknown command '\(command)'\n\(usage)")
    status = Output.ExitCode.usage
case nil:
    Output.standardError(usage)
    status = Output.ExitCode.usage
}
exit(status)
