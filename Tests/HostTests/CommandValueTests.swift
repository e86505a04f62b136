import Control
import Foundation
import Glibc
import Testing
import Web

@testable import Capture
@testable import Host

/// Every control command with every class of value, through every transport (the console as stdin feeds it, the
/// control socket, the page's JSON API), against one running host. One rule is asserted for each answer: one line,
/// `ok …` or `error …`; a finite number out of a control's range is clamped and said; what is not a value of the
/// command's kind (missing, extra words, not a number, inf, nan) is a usage error; nothing is created outside the
/// folders asked for; and the host still answers after each. The page may do less (no `wait`, no folder for `snap`):
/// there it is refused with 400. Runs in the publishing stage (TCP, inside a network namespace with only loopback).
@Suite(.serialized) struct CommandValueTests {
    /// What an answer must be.
    enum Expect: Sendable, CustomStringConvertible {
        /// `ok`, without a clamp note.
        case ok
        /// `ok … (clamped from V)`.
        case clamped(String)
        /// `error usage: …`.
        case usage
        /// `error …` of another kind (not supported here, not a filter).
        case refused

        var description: String {
            switch self {
            case .ok: "ok"
            case let .clamped(from): "clamped from \(from)"
            case .usage: "usage"
            case .refused: "refused"
            }
        }
    }

    /// The value classes of every command that takes a value, and what each must give on a test pattern (no camera:
    /// torch, focus and hue are not supported; the rest fall back to software stages).
    static func cases(folder: String) -> [(line: String, expect: Expect)] {
        var cases: [(String, Expect)] = []
        let notNumbers: [String] = ["", "abc", "inf", "-inf", "nan", "1e400", "é", "日本"]
        // Numbers with a range: the in-range value, each bound, one past each, zero, negative, huge.
        let numeric: [(verb: String, inRange: String, outside: [(String, String)])] = [
            ("zoom", "2", [("0", "0"), ("-1", "-1"), ("17", "17"), ("1e20", "1e+20"), ("1e308", "1e+308")]),
            ("exposure ev=", "1", [("-11", "-11"), ("11", "11"), ("1e20", "1e+20"), ("-1e308", "-1e+308")]),
            ("brightness", "0.5", [("1.5", "1.5"), ("-1.01", "-1.01"), ("5", "5"), ("-5", "-5"), ("1e20", "1e+20"), ("1e308", "1e+308")]),
            ("contrast", "-0.25", [("2", "2"), ("-2", "-2")]),
            ("saturation", "1", [("1e20", "1e+20")]),
            ("wb", "5000", [("0", "0"), ("-5", "-5"), ("1999", "1999"), ("12001", "12001"), ("99999999", "99999999")])
        ]
        for (verb, inRange, outside) in numeric {
            let join = verb.hasSuffix("=") ? "" : " "
            cases.append(("\(verb)\(join)\(inRange)", .ok))
            for (value, said) in outside { cases.append(("\(verb)\(join)\(value)", .clamped(said))) }
            for value in notNumbers where !(verb == "wb" && value.isEmpty) { cases.append(("\(verb)\(join)\(value)", .usage)) }
            cases.append(("\(verb)\(join)\(inRange) extra", .usage))
        }
        cases += [
            ("zoom", .usage), ("wb", .usage), ("brightness", .usage), ("exposure", .usage),
            ("exposure 0.5 0.5", .ok), ("exposure 2 -1", .clamped("2 -1")), ("exposure 0.5", .usage), ("exposure nan 0.5", .usage),
            ("exposure 0.5 0.5 0.5", .usage), ("focus 0.5 0.5", .refused), ("focus inf 0", .usage), ("focus", .usage),
            ("hue 0.1", .refused), ("hue abc", .usage), ("torch on", .refused), ("torch", .usage), ("torch 1", .usage),
            ("mirror on", .ok), ("mirror off", .ok), ("mirror", .usage), ("mirror yes", .usage), ("mirror on off", .usage),
            ("filter sepia", .ok), ("filter none", .ok), ("filter", .ok), ("filter é", .refused), ("filter sepia intensity=inf", .refused),
            ("filter sepia intensity=1e308", .refused), ("filter lut file=/nonexistent-swiftcam.cube", .refused),
            ("record", .usage), ("record start now", .usage), ("record pause", .usage), ("stats extra", .usage),
            ("stats --json extra", .usage), ("switch now", .usage), ("help me", .usage), ("quit now", .usage), ("exit 0", .usage),
            ("wait 0", .usage), ("wait -1", .usage), ("wait 100001", .usage), ("wait 1e20", .usage), ("wait abc", .usage),
            ("wait", .usage), ("wait 1 2", .usage), ("wait 1", .ok), ("nosuch", .refused), ("", .refused), ("日本", .refused),
            // Folders: one that can be made (spaces and all), one under a folder that is not there, /proc, a file.
            ("snap \(folder)/dir with space", .ok), ("snap \(folder)/missing/deeper", .refused), ("snap /proc", .refused),
            ("snap \(folder)/a-file", .refused), ("snap", .ok)
        ]
        return cases
    }

    @Test func everyCommandWithEveryClassOfValue() async throws {
        let run = try HostRun(
            #"""
            {"sources": [{"kind": "test"}, {"kind": "test", "pattern": "ball"}], "caps": {"width": 160, "height": 120, "framerate": 30},
             "preview": "none", "still": {"directory": "DIR/captures"}}
            """#
        ) {
            $0.web = WebOptions(host: "127.0.0.1", port: 0, token: nil)
            $0.controlSocket = true
        }
        #expect(await run.ready())
        guard case let .ready(console)? = await run.event({ if case .ready = $0 { true } else { false } }),
            case let .controlSocket(socket)? = await run.event({ if case .controlSocket = $0 { true } else { false } }),
            case let .cameraScreen(url)? = await run.event({ if case .cameraScreen = $0 { true } else { false } }),
            let port = URLComponents(string: url)?.port
        else {
            Issue.record("the host did not come up: \(run.events)")
            return
        }
        let folder = run.folder.path
        try Data("x".utf8).write(to: run.folder.appendingPathComponent("a-file"))
        let rootBefore = Set((try? FileManager.default.contentsOfDirectory(atPath: "/")) ?? [])

        for (line, expect) in Self.cases(folder: folder) {
            let replies: [(transport: String, reply: Reply?)] = [
                ("stdin", console.execute(line)),
                ("socket", try? ControlSocket.send(line, socket: socket)),
                ("page", pageReply(line, port: port))
            ]
            for (transport, reply) in replies {
                guard let reply else {
                    Issue.record("\(transport) '\(line)': no answer")
                    continue
                }
                let text = reply.description
                #expect(!text.contains("\n") && (text.hasPrefix("ok") || text.hasPrefix("error ")), "\(transport) '\(line)': \(text)")
                if transport == "page", line.hasPrefix("wait") || (line.hasPrefix("snap ") && !reply.isOK) || line.hasPrefix("quit") {
                    // The page may not wait or name a folder: refused, whatever the value (usage errors may come first).
                    #expect(!reply.isOK, "page '\(line)': \(text)")
                    continue
                }
                check(reply, expect, "\(transport) '\(line)'")
            }
            // Still serving: the console and the socket answer a plain command.
            #expect(console.execute("help").isOK, "after '\(line)'")
        }
        #expect((try? ControlSocket.send("stats", socket: socket))?.isOK == true)
        // Nothing made outside what was asked: no new entry at the root, no deeper folder under a missing one.
        let rootAfter = Set((try? FileManager.default.contentsOfDirectory(atPath: "/")) ?? [])
        #expect(rootAfter.subtracting(rootBefore).isEmpty, "\(rootAfter.subtracting(rootBefore))")
        #expect(access("\(folder)/missing", F_OK) != 0, "a folder was made under one that was not there")
        run.host.requestStop()
        _ = await run.outcome()
    }

    private func check(_ reply: Reply, _ expect: Expect, _ context: String) {
        let text = reply.description
        switch expect {
        case .ok: #expect(reply.isOK && !text.contains("(clamped from"), "\(context): \(text)")
        case let .clamped(from): #expect(reply.isOK && text.hasSuffix("(clamped from \(from))"), "\(context): \(text)")
        case .usage: #expect(text.hasPrefix("error usage: "), "\(context): \(text)")
        case .refused: #expect(!reply.isOK && !text.hasPrefix("error usage: "), "\(context): \(text)")
        }
    }

    /// The page's answer to `POST /api/command {"line": …}` as a reply: its `reply` on 200, its `error` on a refusal (400, 403
    /// for a file, 422 from the session).
    private func pageReply(_ line: String, port: Int) -> Reply? {
        guard let body = try? JSONSerialization.data(withJSONObject: ["line": line]),
            let answer = LoopbackHTTP.post("/api/command", body: body, port: port),
            let json = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        else { return nil }
        if let reply = json["reply"] as? String, answer.status == 200 {
            return .ok(String(reply.dropFirst(reply.hasPrefix("ok ") ? 3 : 0)))
        }
        if let error = json["error"] as? String, [400, 403, 422].contains(answer.status) {
            return .error(error.hasPrefix("error ") ? String(error.dropFirst(6)) : error)
        }
        return nil
    }
}
