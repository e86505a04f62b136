/// Publishing the filtered stream beyond this machine: an RTSP server of our own, a push to a media server, or both.
public struct PublishConfig: Codable, Sendable, Equatable {
    /// The RTSP server: clients read `rtsp://HOST:PORT/PATH`.
    public var rtsp: RTSPServeConfig?
    /// A media server to push to: `rtsp://HOST:PORT/PATH` (RTSP RECORD) or `srt://HOST:PORT?streamid=…` (SRT caller).
    public var to: String?
    /// RTMP ingests to push to (YouTube, Twitch, nginx-rtmp, MediaMTX): one object, or a list of them.
    public var rtmp: [RTMPPushConfig]?
    /// A Janus server whose streaming plugin serves the browsers: the host makes a mountpoint there and feeds it.
    public var janus: JanusPublishConfig?

    enum CodingKeys: String, CodingKey, CaseIterable { case rtsp, to, rtmp, janus }

    public init(rtsp: RTSPServeConfig? = nil, to: String? = nil, rtmp: [RTMPPushConfig]? = nil, janus: JanusPublishConfig? = nil) {
        self.rtsp = rtsp
        self.to = to
        self.rtmp = rtmp
        self.janus = janus
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rtsp = try container.decodeIfPresent(RTSPServeConfig.self, forKey: .rtsp)
        to = try container.decodeIfPresent(String.self, forKey: .to)
        janus = try container.decodeIfPresent(JanusPublishConfig.self, forKey: .janus)
        if container.contains(.rtmp) {
            // A list or one object: which one is read from the value's kind, so a bad key is named either way.
            let value = try container.superDecoder(forKey: .rtmp)
            rtmp = (try? value.unkeyedContainer()) != nil ? try [RTMPPushConfig](from: value) : [try RTMPPushConfig(from: value)]
        }
    }
}

/// A Janus streaming mountpoint fed by this camera.
public struct JanusPublishConfig: Codable, Sendable, Equatable {
    /// Janus's HTTP API, `http://HOST:8088/janus`; the RTP goes to the same host.
    public var api: String
    /// The mountpoint's id (nil: one made from the config's name, the same on every start).
    public var mountpoint: Int?

    enum CodingKeys: String, CodingKey, CaseIterable { case api, mountpoint }

    public init(api: String, mountpoint: Int? = nil) {
        self.api = api
        self.mountpoint = mountpoint
    }
}

/// A push to an RTMP ingest. The stream key is a secret, never printed (`***`): the URL's last path segment
/// (`rtmp://a.rtmp.youtube.com/live2/KEY`), or kept out of the config, in `keyFile` (its first line) or in the
/// environment variable `keyEnvironment` (a service unit's `EnvironmentFile`), appended to `url` as its last segment.
public struct RTMPPushConfig: Codable, Sendable, Equatable {
    /// `rtmp://HOST[:PORT]/APP[/KEY]` or `rtmps://…` (RTMP over TLS).
    public var url: String
    /// A file whose first line is the stream key.
    public var keyFile: String?
    /// An environment variable that holds the stream key.
    public var keyEnvironment: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case url, keyFile, keyEnvironment }

    public init(url: String, keyFile: String? = nil, keyEnvironment: String? = nil) {
        self.url = url
        self.keyFile = keyFile
        self.keyEnvironment = keyEnvironment
    }
}

/// The RTSP server's settings. Loopback unless `address` says otherwise; beyond loopback a user and password
/// are required (here or in `SWIFTCAM_RTSP_USER` / `SWIFTCAM_RTSP_PASSWORD`).
public struct RTSPServeConfig: Codable, Sendable, Equatable {
    /// The TCP port (0: any free port, printed at start). Default 8554.
    public var port: Int?
    /// The mount path, starting with "/". Default "/NAME" (the config's name).
    public var path: String?
    /// The address to listen on: "127.0.0.1" (default), "0.0.0.0" for every interface, or one address.
    public var address: String?
    /// The user clients authenticate as (basic or digest).
    public var user: String?
    /// That user's password.
    public var password: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case port, path, address, user, password }
}
