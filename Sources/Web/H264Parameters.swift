/// What an H.264 offer's `a=fmtp` says of the stream (RFC 6184): packetization mode 1 (the payloader fragments NAL
/// units, FU-A) and the profile-level-id, the three bytes after the sequence parameter set's NAL header
/// (profile_idc, the constraint flags, level_idc) exactly as the encoder wrote them, so the offer names the profile and
/// level the viewer receives whichever encoder the live path picked.
enum H264Parameters {
    /// The profile-level-id ("42c01e") of the first sequence parameter set in an Annex B byte-stream access unit, or nil
    /// when it holds none.
    static func profileLevelID(in bytes: UnsafeRawBufferPointer) -> String? {
        var zeros = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 1, zeros >= 2 {
                // A start code: the NAL unit header follows; type 7 is a sequence parameter set.
                let header = index + 1
                if header + 3 < bytes.count, bytes[header] & 0x1f == 7 {
                    return (1...3).map { hex(bytes[header + $0]) }.joined()
                }
            }
            zeros = byte == 0 ? zeros + 1 : 0
            index += 1
        }
        return nil
    }

    /// The fmtp parameters for `profileLevelID`.
    static func formatParameters(profileLevelID: String) -> String {
        "packetization-mode=1;profile-level-id=\(profileLevelID);level-asymmetry-allowed=1"
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
    }
}
