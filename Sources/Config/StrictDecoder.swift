/// A coding key for any string, to list the keys an object really has.
struct AnyKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Throws for the first key of this object that `Keys` does not list, naming it and the keys allowed.
    func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type) throws {
        let container = try self.container(keyedBy: AnyKey.self)
        let allowed = Set(Keys.allCases.map(\.stringValue))
        for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) where !allowed.contains(key.stringValue) {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: codingPath + [key],
                    debugDescription: "unknown key; allowed: \(Keys.allCases.map(\.stringValue).joined(separator: ", "))"))
        }
    }
}

/// Decodes a config strictly: an object whose keys its type lists (`CodingKeys: CaseIterable`) may hold no other
/// key, so a typo (`"framrate"`) is an error naming it and the keys allowed instead of a setting silently ignored.
///
/// It wraps the decoder it is given and checks each object when a type asks for its keyed container; every value
/// below is decoded through it too, so only the top type (`PipelineConfig`) names it and the types below it keep the
/// compiler's `init(from:)`. Objects keyed otherwise (dictionaries, `AnyKey`) take any key.
struct StrictDecoder: Decoder {
    let base: any Decoder

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if let listed = type as? any (CodingKey & CaseIterable).Type { try base.rejectUnknownKeys(listed) }
        return KeyedDecodingContainer(Keyed(base: try base.container(keyedBy: type)))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        Unkeyed(base: try base.unkeyedContainer())
    }

    /// A single value is a leaf (a number, a string): nothing below it to check.
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try base.singleValueContainer()
    }

    /// An object's values, each decoded through a `StrictDecoder` of its own.
    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let base: KeyedDecodingContainer<Key>

        var codingPath: [any CodingKey] { base.codingPath }
        var allKeys: [Key] { base.allKeys }
        func contains(_ key: Key) -> Bool { base.contains(key) }
        func decodeNil(forKey key: Key) throws -> Bool { try base.decodeNil(forKey: key) }

        /// A missing key fails as the base decoder says (`keyNotFound`); a present one is decoded strictly.
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard base.contains(key) else { return try base.decode(type, forKey: key) }
            return try T(from: superDecoder(forKey: key))
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try superDecoder(forKey: key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try superDecoder(forKey: key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { StrictDecoder(base: try base.superDecoder()) }
        func superDecoder(forKey key: Key) throws -> any Decoder { StrictDecoder(base: try base.superDecoder(forKey: key)) }
    }

    /// An array's elements, each decoded through a `StrictDecoder` of its own.
    private struct Unkeyed: UnkeyedDecodingContainer {
        var base: any UnkeyedDecodingContainer

        var codingPath: [any CodingKey] { base.codingPath }
        var count: Int? { base.count }
        var isAtEnd: Bool { base.isAtEnd }
        var currentIndex: Int { base.currentIndex }
        mutating func decodeNil() throws -> Bool { try base.decodeNil() }

        /// Past the end fails as the base decoder says (`valueNotFound`).
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            guard !base.isAtEnd else { return try base.decode(type) }
            return try T(from: superDecoder())
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try superDecoder().container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try superDecoder().unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder { StrictDecoder(base: try base.superDecoder()) }
    }
}
