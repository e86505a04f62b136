import Config
import Filters
import Foundation
import GStreamer
import SwiftFilterElement
import Testing

@testable import Capture

/// A chain's text is parsed once, where it arrived (a config, a command), and crosses the host to the element as a
/// value: the debug build's `ParseCounter` counts every parse of a watched text. The texts are canonical, so a parse of
/// the chain's own description (the element reading its `chain` property back, say) would count too.
@Suite("The chain as a value")
struct ChainAsValueTests {
    #if DEBUG
    @Test func aConfigsChainIsParsedOnceFromTheFileToTheFrames() throws {
        let text = "sepia intensity=0.61 | vignette radius=1.37"
        ParseCounter.watch(text)
        let (session, folder) = try scratchSession(
            #"{"sources":[{"kind":"test"}],"caps":{"width":64,"height":48,"format":"RGBA"},"filter":"\#(text)"}"#, name: "once")
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        defer { session.stop() }
        #expect(session.waitForFrames(3) >= 3)
        // The camera controls compose their stages with the chain as values too.
        #expect(try session.zoom(2).contains("digital"))
        #expect(try session.mirror(true).contains("mirror"))
        let chain = try #require(session.graph?.filter.flatMap { SwiftFilterElement.stats(of: $0) }?.chain)
        #expect(chain == "mirror | zoom | \(text)")
        #expect(session.userChain == text)
        #expect(ParseCounter.parses(of: text) == 1)
    }

    @Test func aCommandsChainIsParsedOnceFromTheLineToTheElement() throws {
        let text = "posterize levels=7 | mono"
        ParseCounter.watch(text)
        let (session, folder) = try scratchSession(
            #"{"sources":[{"kind":"test"}],"caps":{"width":64,"height":48,"format":"RGBA"},"filter":"invert"}"#, name: "command")
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        defer { session.stop() }
        let interpreter = CommandInterpreter(session: session, permissions: .console, onQuit: {})
        let reply = interpreter.execute("filter \(text)")
        #expect(reply.isOK, "\(reply)")
        #expect(session.waitForFrames(3) >= 3)
        #expect(session.graph?.filter.flatMap { SwiftFilterElement.stats(of: $0) }?.chain == text)
        #expect(ParseCounter.parses(of: text) == 1)
    }
    #endif

    /// Chain changes that race end with the element running the chain the session says it runs: one compiled before
    /// a later change is dropped, never installed over it.
    @Test func racingChainChangesLeaveTheElementRunningTheLastOne() throws {
        let (session, folder) = try scratchSession(
            #"{"sources":[{"kind":"test"}],"caps":{"width":64,"height":48,"format":"RGBA"}}"#, name: "race")
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        defer { session.stop() }
        let chains = (1...60).map { FilterChain([Posterize(levels: 2 + $0 % 14), Blur(radius: Double($0 % 5 + 1))]) }
        DispatchQueue.concurrentPerform(iterations: chains.count) { index in _ = try? session.setFilter(chains[index]) }
        let running = session.graph?.filter.flatMap { SwiftFilterElement.stats(of: $0) }?.chain
        #expect(running == session.userChain)
        #expect(chains.map(\.description).contains(session.userChain))
    }
}
