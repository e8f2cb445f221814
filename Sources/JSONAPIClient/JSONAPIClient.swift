@_exported import JSONAPIClientCore
