import Foundation
import Testing
import UptakeCore
import UptakeTestSupport

/// `schema/openapi.json`, read with the project's own JSON parser, and the
/// part of JSON Schema its response schemas use, so tests can hold the
/// daemon's real answers against the document.
struct OpenAPIDocument {
  let root: JSONValue

  /// The document checked in beside the sources.
  static func load() throws -> OpenAPIDocument {
    let bytes = Array(try Data(contentsOf: packageFile("schema/openapi.json")))
    return OpenAPIDocument(root: try JSONParser(maxDepth: 64).parse(bytes))
  }

  /// The response object of an operation for a status, `$ref` resolved;
  /// nil when the document does not list that status.
  func response(_ method: String, _ path: String, status: Int) -> JSONValue? {
    root["paths"]?[path]?[method.lowercased()]?["responses"]?[String(status)]
      .map(resolved)
  }

  /// A named schema of `components/schemas`.
  func componentSchema(_ name: String) -> JSONValue? {
    root["components"]?["schemas"]?[name]
  }

  /// Follows `$ref`s within this document.
  func resolved(_ value: JSONValue) -> JSONValue {
    guard case .string(let reference)? = value["$ref"], reference.hasPrefix("#/") else {
      return value
    }
    var target = root
    for name in reference.dropFirst(2).split(separator: "/") {
      guard let next = target[String(name)] else { return .null }
      target = next
    }
    return resolved(target)
  }

  /// Every way `value` breaks `schema`, as "location: reason" lines; empty
  /// when it conforms.
  func violations(of value: JSONValue, against schema: JSONValue, at location: String = "$")
    -> [String]
  {
    let schema = resolved(schema)
    guard case .object(let keywords) = schema else {
      return ["\(location): schema is not an object"]
    }
    var found: [String] = []
    for (keyword, argument) in keywords {
      if Self.annotations.contains(keyword) { continue }
      switch keyword {
      case "type":
        let names: [String]
        switch argument {
        case .string(let name): names = [name]
        case .array(let list):
          names = list.compactMap { if case .string(let s) = $0 { s } else { nil } }
        default: names = []
        }
        if !names.contains(where: { Self.hasType(value, $0) }) {
          found.append(
            "\(location): \(Self.describe(value)) is not \(names.joined(separator: " or "))")
        }
      case "const":
        if value != argument {
          found.append("\(location): \(Self.describe(value)) is not the constant")
        }
      case "enum":
        if case .array(let allowed) = argument, !allowed.contains(value) {
          found.append("\(location): \(Self.describe(value)) is not one of the enum")
        }
      case "oneOf":
        guard case .array(let choices) = argument else { continue }
        let matching = choices.filter { violations(of: value, against: $0, at: location).isEmpty }
        if matching.count != 1 {
          found.append("\(location): matches \(matching.count) of oneOf, not exactly 1")
        }
      case "properties", "additionalProperties", "required":
        found += objectViolations(value, schema, keyword, argument, location)
      case "items":
        if case .array(let elements) = value {
          for (index, element) in elements.enumerated() {
            found += violations(of: element, against: argument, at: "\(location)[\(index)]")
          }
        }
      case "minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum":
        found += boundViolations(value, keyword, argument, location)
      case "pattern":
        if case .string(let text) = value, case .string(let pattern) = argument,
          text.range(of: pattern, options: .regularExpression) == nil
        {
          found.append("\(location): \"\(text)\" does not match \(pattern)")
        }
      case "format":
        if case .string(let text) = value, case .string(let format) = argument,
          !Self.hasFormat(text, format)
        {
          found.append("\(location): \"\(text)\" is not a \(format)")
        }
      default:
        // A keyword this checker does not know would pass silently: refuse.
        found.append("\(location): schema keyword \(keyword) is not checked by this test")
      }
    }
    return found
  }

  private func objectViolations(
    _ value: JSONValue, _ schema: JSONValue, _ keyword: String, _ argument: JSONValue,
    _ location: String
  ) -> [String] {
    guard case .object(let members) = value else { return [] }
    var found: [String] = []
    switch keyword {
    case "required":
      guard case .array(let names) = argument else { return [] }
      for case .string(let name) in names where value[name] == nil {
        found.append("\(location): no member \(name)")
      }
    case "properties":
      for (name, member) in members {
        if let property = argument[name] {
          found += violations(of: member, against: property, at: "\(location).\(name)")
        }
      }
    default:  // additionalProperties
      for (name, member) in members where schema["properties"]?[name] == nil {
        switch argument {
        case .bool(false): found.append("\(location): unexpected member \(name)")
        case .bool(true): continue
        default: found += violations(of: member, against: argument, at: "\(location).\(name)")
        }
      }
    }
    return found
  }

  private func boundViolations(
    _ value: JSONValue, _ keyword: String, _ argument: JSONValue, _ location: String
  ) -> [String] {
    guard case .number(let bound) = argument, let limit = bound.doubleValue else { return [] }
    let measured: Double?
    switch (keyword, value) {
    case ("minItems", .array(let elements)), ("maxItems", .array(let elements)):
      measured = Double(elements.count)
    case ("minLength", .string(let text)), ("maxLength", .string(let text)):
      measured = Double(text.unicodeScalars.count)
    case ("minimum", .number(let number)), ("maximum", .number(let number)):
      measured = number.doubleValue
    default:
      measured = nil
    }
    guard let measured else { return [] }
    let fits = keyword.hasPrefix("min") ? measured >= limit : measured <= limit
    return fits ? [] : ["\(location): \(keyword) \(bound.text) broken by \(measured)"]
  }

  /// Keywords that describe and never constrain.
  private static let annotations: Set<String> = ["description", "default", "title", "examples"]

  private static func hasType(_ value: JSONValue, _ type: String) -> Bool {
    switch (type, value) {
    case ("null", .null), ("boolean", .bool), ("number", .number), ("string", .string),
      ("array", .array), ("object", .object):
      true
    case ("integer", .number(let number)): number.isInteger
    default: false
    }
  }

  private static func hasFormat(_ text: String, _ format: String) -> Bool {
    switch format {
    case "date": Timestamp.parseDate(text) != nil
    case "date-time": Timestamp.parseRFC3339(text) != nil
    default: true
    }
  }

  private static func describe(_ value: JSONValue) -> String {
    switch value {
    case .null: "null"
    case .bool(let flag): "\(flag)"
    case .number(let number): number.text
    case .string(let text): "\"\(text)\""
    case .array: "an array"
    case .object: "an object"
    }
  }
}

extension OpenAPIDocument {
  /// Requires that a live response is one the document describes for this
  /// operation: its status listed, its content type among the status's, its
  /// documented headers sent, and a JSON body that conforms to the schema.
  func expectConforms(
    _ response: HTTPResponse, _ method: String, _ path: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let what = "\(method) \(path) \(response.status)"
    guard let documented = self.response(method, path, status: response.status) else {
      Issue.record("\(what) is not documented", sourceLocation: sourceLocation)
      return
    }
    for (name, _) in documented["headers"].map(Self.members) ?? [] {
      #expect(
        response.header(name) != nil, "\(what): no \(name) header", sourceLocation: sourceLocation)
    }
    guard let content = documented["content"] else {
      #expect(response.body.isEmpty, "\(what) has a body", sourceLocation: sourceLocation)
      return
    }
    let mediaType =
      response.header("Content-Type")?.split(separator: ";").first
      .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    guard let media = content[mediaType] else {
      Issue.record(
        "\(what): Content-Type \(mediaType) is not documented", sourceLocation: sourceLocation)
      return
    }
    guard mediaType == "application/json", let schema = media["schema"] else { return }
    do {
      let body = try JSONParser(maxDepth: 64).parse(Array(response.body))
      let found = violations(of: body, against: schema)
      #expect(
        found.isEmpty, "\(what): \(found.joined(separator: "; "))", sourceLocation: sourceLocation)
    } catch {
      Issue.record("\(what): body is not JSON: \(error)", sourceLocation: sourceLocation)
    }
  }

  private static func members(_ value: JSONValue) -> [(String, JSONValue)] {
    if case .object(let members) = value { return members }
    return []
  }
}
