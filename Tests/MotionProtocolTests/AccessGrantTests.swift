import Testing
import MotionProtocol

@Suite("Access grants")
struct AccessGrantTests {
    @Test("a coarse grant admits orientation, tilt, shake and availability and denies the rest, naming what it allows")
    func coarse() throws {
        for stream in StreamName.allCases {
            let subscribe = ClientRequest.subscribe(.init(id: 1, stream: stream))
            if AccessGrant.coarseStreams.contains(stream) {
                #expect(try AccessGrant.coarse.admit(subscribe) == subscribe)
            } else {
                #expect(throws: ProtocolError(.accessDenied, "\(stream): not available to this connection (coarse access: orientation, tilt, shake, availability)")) {
                    try AccessGrant.coarse.admit(subscribe)
                }
                #expect(throws: ProtocolError.self) {
                    try AccessGrant.coarse.admit(.get(id: 2, stream: stream, frame: nil, orientation: nil))
                }
            }
        }
        #expect(try AccessGrant.coarse.admit(.status(id: 3)) == .status(id: 3))
        #expect(try AccessGrant.coarse.admit(.unsubscribe(id: 4, stream: .gyro)) == .unsubscribe(id: 4, stream: .gyro))
    }

    @Test("a rate cap raises shorter intervals (and a missing one) to the cap, leaves longer ones and state streams alone")
    func cap() throws {
        let grant = AccessGrant.activeSession(rate: 20)
        #expect(grant.capsRate && grant.minimumInterval == 0.05)
        let cases: [(StreamName, Double?, Double?)] = [
            (.gyro, 0.01, 0.05), (.gyro, nil, 0.05), (.deviceMotion, 0.2, 0.2), (.orientation, 0.01, 0.05), (.availability, nil, nil),
        ]
        for (stream, asked, granted) in cases {
            guard case .subscribe(let admitted) = try grant.admit(.subscribe(.init(stream: stream, interval: asked))) else {
                Issue.record("not a subscription")
                continue
            }
            #expect(admitted.interval == granted, "\(stream) \(String(describing: asked))")
        }
        // 100 Hz or more is no cap: the protocol's own limit applies.
        #expect(!AccessGrant.activeSession(rate: 100).capsRate)
        #expect(AccessGrant.activeSession(rate: 500).minimumInterval == Wire.minimumInterval)
    }

    @Test("descriptions name the tier, the streams and a cap")
    func descriptions() {
        #expect(AccessGrant.full.description == "full (every stream)")
        #expect(AccessGrant.coarse.description == "coarse (orientation, tilt, shake, availability)")
        #expect(AccessGrant.activeSession(rate: 50).description == "activeSession (every stream, at most 50 Hz)")
    }

    @Test("the hello carries the grant and a client reads it back")
    func helloRoundTrip() throws {
        for grant in [AccessGrant.full, .coarse, .activeSession(rate: 25)] {
            let hello = ServerMessage.hello(Hello(daemon: "motiond", sensors: [:], frames: .xArbitraryZVertical, access: grant))
            guard case .hello(let parsed)? = try ServerMessage.parse(line: Array(hello.line.utf8)) else {
                Issue.record("no hello parsed")
                continue
            }
            #expect(parsed.access == grant)
        }
    }
}
