import Foundation

/// `jsonapi`: inspect JSON:API documents, fetch them from servers and change resources there.
exit(await JSONAPI.run(Array(CommandLine.arguments.dropFirst()), streams: .standard))
