import Capture
import Config
import Foundation
import Testing

/// Where `swiftcam` looks for `pipelines/`: the order a checkout and an installed package both rely on.
@Suite struct ConfigStoreTests {
    /// A scratch tree: `work/` (the working directory), `checkout/.build/release/swiftcam` (an executable built in a
    /// checkout) and `etc/pipelines` (the installed configs); `make` lists which `pipelines` folders exist.
    struct Tree {
        let root: URL
        var work: String { root.appendingPathComponent("work").path }
        var checkout: String { root.appendingPathComponent("checkout").path }
        var executable: String { root.appendingPathComponent("checkout/.build/release/swiftcam").path }
        var installed: String { root.appendingPathComponent("etc/pipelines").path }

        init(_ folders: [String]) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-store-\(UUID().uuidString)")
            for folder in ["work", "checkout/.build/release"] + folders {
                try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
        }

        func store(environment: [String: String] = [:]) -> String {
            ConfigStore.standard(
                executable: executable, environment: environment, workingDirectory: work,
                installed: installed
            ).directory
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    /// A config saved in decomposed Unicode (`de\u{301}ja\u{300}.json`, as some editors and file systems write it) was
    /// not found by the composed name that looks the same; both forms name one session (one control socket).
    @Test func aNameInEitherUnicodeFormFindsTheFile() throws {
        let tree = try Tree(["work/pipelines"])
        defer { tree.remove() }
        let decomposed = "de\u{301}ja\u{300}", composed = "d\u{E9}j\u{E0}"
        try Data(#"{"sources": [{"kind": "test"}], "description": "accents"}"#.utf8)
            .write(to: URL(fileURLWithPath: "\(tree.work)/pipelines/\(decomposed).json"))
        let store = ConfigStore(directory: "\(tree.work)/pipelines")
        #expect(try store.load(composed).description == "accents")
        #expect(try store.load(decomposed).description == "accents")
        #expect(ConfigStore.sessionName(for: decomposed).unicodeScalars.elementsEqual(composed.unicodeScalars))
        #expect(ConfigStore.sessionName(for: composed).unicodeScalars.elementsEqual(composed.unicodeScalars))
    }

    @Test func theInstalledConfigsAreFoundWhenNoCheckoutHasAny() throws {
        let tree = try Tree(["etc/pipelines"])
        defer { tree.remove() }
        #expect(tree.store() == tree.installed)
    }

    @Test func aCheckoutsConfigsWinOverTheInstalledOnes() throws {
        let tree = try Tree(["etc/pipelines", "checkout/pipelines"])
        defer { tree.remove() }
        #expect(tree.store() == tree.checkout + "/pipelines")
    }

    @Test func theWorkingDirectoryAndTheVariableComeFirst() throws {
        let tree = try Tree(["etc/pipelines", "checkout/pipelines", "work/pipelines"])
        defer { tree.remove() }
        #expect(tree.store() == tree.work + "/pipelines")
        #expect(tree.store(environment: ["SWIFTCAM_PIPELINES": "/elsewhere"]) == "/elsewhere")
    }

    @Test func withNoConfigsAnywhereTheAnswerIsTheRelativeFolder() throws {
        let tree = try Tree([])
        defer { tree.remove() }
        #expect(tree.store() == "pipelines")
    }
}
