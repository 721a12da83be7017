import Dispatch
import Glibc
import MotionCore
import MotionIIO
import MotionProtocol
import MotionSync
import Synchronization
import Testing
@testable import MotionDaemon

/// The send path under real concurrency: a pipeline thread fills a client's outbox (states
/// that replace each other, samples that overflow, replies), writing directly whenever the
/// server is not on it, while the server's thread writes it to a socket with
/// ``ClientConnection/flush(now:)`` and a reader on the other end checks every line. Issue 13's corruption came from exactly this interleaving; full speed, no sleeps, so a
/// second of it meets the race many times (the old send path failed it every run).
@Suite("ClientOutbox: concurrent fill and write")
struct ClientOutboxTests {
    @Test("while the pipeline coalesces and drops, the peer reads only whole messages, every reply among them")
    func concurrentFillAndWrite() throws {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let (daemonEnd, clientEnd) = (fds[0], fds[1])
        defer { close(clientEnd) }
        let replies = 5_000
        let outbox = Lock<ClientOutbox?>(nil)
        let done = Atomic<Bool>(false)
        let group = DispatchGroup()

        // Posts that must have the server write (as the server's `deliver` wakes it).
        let wake = DispatchSemaphore(value: 0)

        // The server's side: owns the connection (it is confined to one thread, as on the
        // server's queue), publishes its outbox, and writes whenever woken, waiting for the
        // socket to take more when it is full, until the pipeline is done and all is out.
        DispatchQueue.global().async(group: group) {
            let connection = ClientConnection(id: ClientID(raw: 1), fd: daemonEnd)
            outbox.withLock { $0 = connection.outbox }
            writing: while true {
                wake.wait()
                repeat {
                    guard connection.flush(now: BootClock.now()) else { break writing }
                    if connection.outbox.count > 0 {
                        var writable = pollfd(fd: daemonEnd, events: Int16(POLLOUT), revents: 0)
                        _ = poll(&writable, 1, 100)
                    }
                } while connection.outbox.count > 0
                if done.load(ordering: .acquiring) && connection.outbox.count == 0 { break }
            }
            shutdown(daemonEnd, Int32(SHUT_WR))
        }
        // The pipeline's side.
        DispatchQueue.global().async(group: group) {
            var target: ClientOutbox?
            while target == nil { target = outbox.withLock { $0 } }
            func post(_ message: ServerMessage) {
                if target!.deliver([OutgoingMessage(message)], now: BootClock.now()) { wake.signal() }
            }
            for n in 0..<replies {
                post(.availability(.gyroscope, SensorState(available: n % 2 == 0, reason: "state \(n)")))
                post(.sample(Sample(kind: .accelerometer, timestamp: Double(n), vector: Vector3(0, 0, -1))))
                post(.calibration(accuracy: n % 3 == 0 ? .low : .high, calibrationNeeded: false))
                post(.reply(id: n, .success(.unsubscribed)))
            }
            done.store(true, ordering: .releasing)
            wake.signal()
        }

        // The client: reads everything and parses every line.
        var framer = LineFramer()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var lines = 0
        var bad: [String] = []
        var answered = Set<Int>()
        while true {
            let n = buffer.withUnsafeMutableBytes { read(clientEnd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            framer.append(buffer[0..<n])
            while let line = try framer.nextLine() {
                lines += 1
                do {
                    if case .reply(let id, _)? = try ServerMessage.parse(line: line), let id { answered.insert(id) }
                } catch {
                    if bad.count < 5 { bad.append(String(decoding: line.prefix(120), as: UTF8.self)) }
                }
            }
        }
        group.wait()
        close(daemonEnd)
        #expect(bad.isEmpty, "\(bad.count)+ of \(lines) lines were not whole messages: \(bad)")
        #expect(answered.count == replies, "\(replies - answered.count) replies lost")
    }
}

/// The pipeline's direct path: samples and events go out on the delivering thread; replies and
/// whatever a full socket holds back are the server's.
@Suite("ClientOutbox: direct writes")
struct ClientOutboxDirectTests {
    /// A connected socket pair: the daemon's end (non-blocking, as accepted) and the client's.
    static func pair() throws -> (daemon: Int32, client: Int32) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw POSIXFailure(errno) }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        return (fds[0], fds[1])
    }

    struct POSIXFailure: Error { let code: Int32; init(_ code: Int32) { self.code = code } }

    /// Everything the client's end can read now.
    static func readable(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
    }

    static func sample(_ n: Int) -> OutgoingMessage {
        OutgoingMessage(.sample(Sample(kind: .accelerometer, timestamp: Double(n), vector: Vector3(0, 0, -1))))
    }

    @Test("samples are written at once on the delivering thread, with no server flush asked")
    func samplesGoStraightOut() throws {
        let (daemon, client) = try Self.pair()
        defer { close(daemon); close(client) }
        let outbox = ClientOutbox(id: ClientID(raw: 1), fd: daemon)
        #expect(!outbox.deliver([Self.sample(1), Self.sample(2)], now: 0))
        #expect(outbox.count == 0)
        #expect(Self.readable(client).split(separator: "\n").count == 2)
    }

    @Test("a reply is left to the server (it counts replies), and so is what follows until it has written")
    func repliesAreTheServers() throws {
        let (daemon, client) = try Self.pair()
        defer { close(daemon); close(client) }
        let outbox = ClientOutbox(id: ClientID(raw: 1), fd: daemon)
        #expect(outbox.deliver([OutgoingMessage(.reply(id: 7, .success(.unsubscribed)))], now: 0))
        #expect(!outbox.deliver([Self.sample(1)], now: 0), "the server is already asked")
        #expect(Self.readable(client).isEmpty && outbox.count == 2)
        let written = outbox.write(now: 0)
        #expect(written.result == .drained && written.replies == 1)
        #expect(Self.readable(client).split(separator: "\n").count == 2)
        #expect(!outbox.deliver([Self.sample(2)], now: 0), "drained: direct again")
        #expect(Self.readable(client).split(separator: "\n").count == 1)
    }

    @Test("a lone sample the socket takes only in part is finished from the queue: whole lines, in order, none lost")
    func partlyWrittenSample() throws {
        let (daemon, client) = try Self.pair()
        defer { close(daemon); close(client) }
        let outbox = ClientOutbox(id: ClientID(raw: 1), fd: daemon)
        var n = 0
        while !outbox.deliver([Self.sample(n)], now: 0) { n += 1 } // straight out until the socket is full
        #expect(outbox.count == 1, "the sample the socket did not take whole is queued")
        for more in n + 1...n + 10 { #expect(!outbox.deliver([Self.sample(more)], now: 0), "queued behind it") }
        var text = ""
        repeat { text += Self.readable(client) } while outbox.write(now: 0).result != .drained
        text += Self.readable(client)
        let timestamps = try text.split(separator: "\n").map { line -> Double in
            guard case .sample(let sample)? = try ServerMessage.parse(line: Array(line.utf8)) else { throw POSIXFailure(EINVAL) }
            return sample.timestamp
        }
        #expect(timestamps == (0...n + 10).map(Double.init))
    }

    @Test("a full socket hands the rest to the server once; a closed outbox writes nothing")
    func fullSocket() throws {
        let (daemon, client) = try Self.pair()
        defer { close(daemon); close(client) }
        let outbox = ClientOutbox(id: ClientID(raw: 1), fd: daemon)
        var asked = 0
        for n in 0..<20_000 where outbox.deliver([Self.sample(n)], now: 0) { asked += 1 }
        #expect(asked == 1, "the server is asked once, when the socket first took no more")
        #expect(outbox.count > 0)
        outbox.close()
        _ = Self.readable(client)
        #expect(!outbox.deliver([Self.sample(1)], now: 0))
    }
}
