import Base
import Config
import FoundationEssentials
import GStreamer

/// The video encoders SwiftCam knows, which this machine has, and which each use would choose now
/// (`swiftcam encoders`).
public struct EncoderInventory: Sendable, Encodable {
    /// One known encoder.
    public struct Entry: Sendable, Encodable, Equatable {
        public let element: String
        public let codec: String
        public let hardware: Bool
        public let origin: String
        /// Whether this machine has the element.
        public let installed: Bool
        /// Why it failed to start in this process, if it did (it is skipped then).
        public let failed: String?
    }

    /// What one use of an encoder chooses.
    public struct Choice: Sendable, Encodable, Equatable {
        /// "live" or "record.encoder=VALUE".
        public let use: String
        /// The element chosen; nil when this machine has none of the candidates.
        public let element: String?
        /// The order tried: installed ones that have not failed in this process.
        public let order: [String]
    }

    public let encoders: [Entry]
    public let choices: [Choice]

    /// Looks at this machine: `available` says whether an element is installed.
    public static func scan(
        available: @escaping @Sendable (String) -> Bool = EncoderChoice.installed,
        failures: FailedEncoders = EncoderChoice.failed
    ) -> EncoderInventory {
        let encoders = EncoderChoice.all.map { candidate in
            Entry(
                element: candidate.element, codec: candidate.codec.encodingName, hardware: candidate.isHardware,
                origin: candidate.origin, installed: available(candidate.element), failed: failures.reason(for: candidate.element))
        }
        func choice(_ use: String, _ choice: EncoderChoice) -> Choice {
            Choice(use: use, element: choice.chosen?.element, order: choice.usable.map(\.element))
        }
        var choices = [choice("live", .live(named: nil, available: available, failures: failures))]
        for setting in RecordConfig.Encoder.families {
            choices.append(
                choice("record.encoder=\(setting)", .record(RecordConfig.Encoder(name: setting), available: available, failures: failures)))
        }
        return EncoderInventory(encoders: encoders, choices: choices)
    }

    /// For people: one line per encoder, then the choices.
    public var text: String {
        let width = encoders.map(\.element.count).max() ?? 12
        var lines = ["Encoders, in the order SwiftCam tries them (a config's live.encoder or record.encoder may name one):"]
        for entry in encoders {
            let state = entry.failed.map { "failed here: \($0)" } ?? (entry.installed ? "installed    " : "not installed")
            lines.append(
                "  \(entry.element.padded(to: width + 2))\(entry.codec.padded(to: 6))"
                    + "\(entry.hardware ? "hardware" : "software")  \(state)  — \(entry.origin)")
        }
        lines.append("")
        lines.append("Chosen on this machine:")
        for choice in choices {
            let tail = choice.order.count > 1 ? " (then \(choice.order.dropFirst().joined(separator: ", ")))" : ""
            lines.append("  \(choice.use): \(choice.element ?? "none installed")\(tail)")
        }
        return lines.joined(separator: "\n")
    }

    /// The same as JSON.
    public var json: String { prettyJSON(self) }

    /// The one line `swiftcam devices` adds.
    public var summaryLine: String {
        "encoders: live video \(choices.first?.element ?? "none installed"); 'swiftcam encoders' lists them all"
    }
}
