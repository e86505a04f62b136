import Base
import Foundation
import Testing

@Suite struct JSONValueTests {
    @Test func parsesEveryKindAndWritesItBackSorted() throws {
        let value = try JSONValue.parse(#" {"b": [1, -2.50, 3e2, true, false, null], "a": "x\"y\\z\/\u00e9\ud83d\ude00\n"} "#)
        #expect(value["a"]?.string == "x\"y\\z/é😀\n")
        #expect(value["b"]?.array?.count == 6)
        #expect(value["b"]?.array?[1] == .number("-2.50"))  // the number as written
        #expect(value["b"]?.array?[2].int == 300)
        #expect(value["b"]?.array?[1].int == nil)
        #expect(value.text == #"{"a":"x\"y\\z/é😀\n","b":[1,-2.50,3e2,true,false,null]}"#)
        #expect(try JSONValue.parse(value.text) == value)
    }

    @Test func readsLikeFoundation() throws {
        // The same documents through Foundation's reader give the same values.
        let documents = [#"{"x": [0.5, 1, "a\tb", {"y": null}], "z": false}"#, #"[1e-3, -0, 12345678901234]"#, #""\u0001""#]
        for document in documents {
            let ours = try JSONValue.parse(document)
            let theirs = try JSONSerialization.jsonObject(with: Data(ours.text.utf8), options: [.fragmentsAllowed])
            let original = try JSONSerialization.jsonObject(with: Data(document.utf8), options: [.fragmentsAllowed])
            #expect((theirs as? NSObject) == (original as? NSObject), "\(document)")
        }
    }

    @Test(arguments: [
        ("{", "line 1, column 2: unexpected end of input, expected a key in quotes"),
        ("{\"a\": 1,\n  \"b\" 2}", "line 2, column 7: unexpected '2', expected ':' after a key"),
        ("[1, 2,]", "line 1, column 7: unexpected ']', expected a value"),
        ("01", "line 1, column 2: unexpected '1' after the value"),
        ("\"a\u{1}\"", "line 1, column 3: a control character in a string (write it escaped, e.g. \\n)"),
        ("\"\\ud800\"", "line 1, column 8: a lone surrogate \\ud800"),
        ("\"\\x\"", "line 1, column 4: an unknown escape '\\x'"),
        ("-", "line 1, column 2: a number needs a digit after '-'"),
        ("1.", "line 1, column 3: a number needs a digit after '.'"),
        ("tru", "line 1, column 4: unexpected end of input, expected true"),
        ("\"abc", "line 1, column 1: a string that never ends"),
        ("", "line 1, column 1: unexpected end of input, expected a value")
    ])
    func syntaxErrorsSayWhere(text: String, message: String) {
        #expect(throws: JSONError.self) { try JSONValue.parse(text) }
        do {
            _ = try JSONValue.parse(text)
        } catch {
            #expect(error.description == message)
        }
    }

    /// Keys are compared as JSON reads them (escapes decoded), per object: the same key in two objects is no duplicate.
    @Test func duplicateKeysAreRefusedPerObject() throws {
        _ = try JSONValue.parse(#"{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}"#)
        #expect(throws: JSONError.duplicateKey(path: "filter")) { try JSONValue.parse(#"{"filter": "x", "filter": "y"}"#) }
        #expect(throws: JSONError.duplicateKey(path: "s")) { try JSONValue.parse(#"{"s": "a\"b", "t": ["}", "{"], "\u0073": 0}"#) }
        #expect(throws: JSONError.duplicateKey(path: "x[1].y.z")) { try JSONValue.parse(#"{"x": [0, {"y": {"z": 1, "z": 2}}]}"#) }
    }

    @Test func deepNestingIsRefusedNotFollowed() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONError.self) { try JSONValue.parse(deep) }
        let allowed = String(repeating: "[", count: JSONValue.maximumDepth) + String(repeating: "]", count: JSONValue.maximumDepth)
        _ = try JSONValue.parse(allowed)
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: JSONError.self) { try JSONValue.parse([0x22, 0xFF, 0x22]) }
    }

    @Test func swiftValuesBecomeJSON() {
        let value = JSONValue(any: ["ok": true, "n": 3, "x": 0.25, "big": 1e300, "list": ["a", 1] as [Any], "nan": Double.nan])
        #expect(value.text == #"{"big":1e+300,"list":["a",1],"n":3,"nan":null,"ok":true,"x":0.25}"#)
        #expect(JSONValue(any: 1) != .bool(true))
        #expect(JSONValue.quoted("a/b\u{7}") == #""a/b\u0007""#)
    }
}
