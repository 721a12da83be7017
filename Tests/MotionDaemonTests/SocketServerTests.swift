import Glibc
import Logging
import MotionConfiguration
import MotionCore
import MotionIIO
import MotionProtocol
import MotionSync
import Testing
@testable import MotionDaemon

/// The socket server in process, over a real Unix socket in a temporary directory, in front of
/// a pipeline on the simulated IMU: a client is greeted, its requests reach the pipeline and
/// its values come back as JSON lines; garbage is answered by the server itself; a client that
/// leaves is forgotten; stopping says goodbye and removes the socket file.
@Suite("SocketServer")
struct SocketServerTests {
    /// A connected client end: lines in, lines out.
    final class Peer {
        let fd: Int32
        private var framer = LineFramer()

        init(path: String) throws {
            fd = try DaemonSocket.connect(path: path, timeout: 5)
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(fd) }

        func send(_ line: String) {
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }

        /// The next line as a message (nil at end of file or after 5 s).
        func next() throws -> ServerMessage? {
            while true {
                if let line = try framer.nextLine() { return try ServerMessage.parse(line: line) }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard count > 0 else { return nil }
                framer.append(buffer[0..<count])
            }
        }

        /// Messages until one satisfies `condition` (nil if none came).
        func next(where condition: (ServerMessage) -> Bool) throws -> ServerMessage? {
            while let message = try next() {
                if condition(message) { return message }
            }
            return nil
        }
    }

    /// A server on a socket of its own in front of a pipeline on the simulated IMU.
    struct Served {
        let server: SocketServer
        let pipeline: Pipeline
        let path: String

        init() throws {
            var socket = DaemonConfiguration.Socket()
            socket.path = try scratchDirectory().path + "/motiond.sock"
            let logger = Logger(label: "test")
            pipeline = Pipeline(source: SimulatedSource(), engine: MotionEngine(), detectors: DetectorConfiguration(),
                                allowed: Set(SensorKind.allCases), store: nil, logger: logger)
            let server = SocketServer(socket: socket, policy: AccessPolicy(DaemonConfiguration.Access()), pipeline: pipeline, logger: logger)
            self.server = server
            path = socket.path
            try pipeline.start(clients: { server.clientCount }, outbox: server.deliver)
            try server.start()
        }

        /// Stops as the daemon does: the source first, then the clients get their goodbye.
        func stop(reason: String = "test over") {
            pipeline.stop()
            server.stop(reason: reason)
        }
    }

    @Test("a client is greeted, subscribes, gets its values as JSON lines, is counted while connected and forgotten when it leaves")
    func roundTrip() throws {
        let served = try Served()
        defer { served.stop() }
        let (server, pipeline, path) = (served.server, served.pipeline, served.path)
        var peer: Peer? = try Peer(path: path)
        guard case .hello(let hello) = try peer?.next() else {
            Issue.record("no hello")
            return
        }
        #expect(hello.access == .full)
        #expect(server.clientCount == 1)
        peer?.send(#"{"op":"subscribe","id":1,"stream":"gyro","interval":0.05}"#)
        #expect(try peer?.next { if case .reply = $0 { true } else { false } }
                == .reply(id: 1, .success(.subscribed(interval: 0.05, available: true))))
        for _ in 0..<3 {
            #expect(try peer?.next()?.stream == .gyro)
        }
        peer = nil
        #expect(PipelineTests.eventually { server.clientCount == 0 && pipeline.currentStatusLine() == "0 clients; sensors idle" })
    }

    @Test("a batch addressing several clients in any order gets each client its own messages in the batch's order; one gone is skipped")
    func interleavedBatch() throws {
        let served = try Served()
        defer { served.stop() }
        var peers: [Peer?] = []
        for _ in 0..<3 {
            let peer = try Peer(path: served.path)
            guard case .hello? = try peer.next() else {
                Issue.record("no hello")
                return
            }
            peers.append(peer)
        }
        peers[1] = nil // client 2 leaves
        #expect(PipelineTests.eventually { served.server.clientCount == 2 })
        func sample(_ t: Double) -> OutgoingMessage {
            OutgoingMessage(.sample(Sample(kind: .gyroscope, timestamp: t, vector: Vector3(0, 0, 1))))
        }
        let order: [(client: UInt64, t: Double)] = [(3, 1), (1, 2), (2, 3), (3, 4), (1, 5), (1, 6), (3, 7)]
        served.server.deliver(order.map { .client(ClientID(raw: $0.client), sample($0.t)) })
        for (index, client) in [(0, UInt64(1)), (2, UInt64(3))] {
            let expected = order.filter { $0.client == client }.map(\.t)
            var received: [Double] = []
            while received.count < expected.count, case .sample(let s)? = try peers[index]?.next() { received.append(s.timestamp) }
            #expect(received == expected, "client \(client)")
        }
    }

    @Test("garbage is answered by the server with the request's id where it can be read, and the connection goes on")
    func garbage() throws {
        let served = try Served()
        defer { served.stop() }
        let peer = try Peer(path: served.path)
        _ = try peer.next()
        peer.send(#"{"op":"fly","id":5}"#)
        guard case .reply(id: 5, .failure(let error)) = try peer.next() else {
            Issue.record("no refusal")
            return
        }
        #expect(error.code == .unknownOp)
        peer.send(#"{"op":"status","id":6}"#)
        guard case .reply(id: 6, .success(.status(let status))) = try peer.next() else {
            Issue.record("no status")
            return
        }
        #expect(status.clients == 1)
    }

    @Test("stopping says goodbye with the reason to every client and removes the socket file")
    func stopping() throws {
        let served = try Served()
        let peer = try Peer(path: served.path)
        _ = try peer.next()
        served.stop()
        #expect(try peer.next() == .goodbye(reason: "test over"))
        #expect(try peer.next() == nil)
        #expect(access(served.path, F_OK) != 0)
    }
}
