import Foundation
import Glibc
@testable import TestSupport
import Testing

/// Every motionctl command that talks to the daemon gives up, with exit 69 and a message saying
/// what it waited for, when the server on the socket does not answer: no hello, half a line,
/// only unknown messages, silence after the hello, replies to the wrong id, a stopped motiond.
@Suite("motionctl deadlines against servers that do not answer")
struct MotionCtlDeadlineTests {
    /// motionctl's default wait for the hello and for each reply (`--reply-timeout`).
    static let replyTimeout = 5.0
    /// Slack on top of a command's own deadlines before the test calls it a hang.
    static let slack = 5.0

    /// A fake server on a Unix socket, one behaviour for every connection:
    /// - `silent`: accepts and sends nothing;
    /// - `half`: sends the first 20 bytes of a hello and stops;
    /// - `unknown`: streams messages of a type no motionctl knows, never a hello;
    /// - `mute`: sends the hello, then nothing;
    /// - `chatter`: sends the hello, then only unknown message types;
    /// - `wrongid`: sends the hello and answers every request with a reply to id 999;
    /// - `ack`: sends the hello and answers every request correctly, then nothing more;
    /// - `neighbours`: like `ack`, and streams 50 Hz samples of all three sensors whose
    ///   timestamps lie a fraction of a microsecond apart (gyroscope 0.2 µs, magnetometer
    ///   0.4 µs after the accelerometer);
    /// - `full`: never accepts, and its queue of pending connections is full (filled by the
    ///   server itself), so a connect has to wait.
    /// When a client's connection ends, the server prints `held <seconds>`: the time from its
    /// accept to the client's end, which leaves out the client's own start-up.
    static let fakeServer = #"""
        import json, socket, sys, threading, time
        path, behaviour = sys.argv[1], sys.argv[2]
        HELLO = (json.dumps({"type": "hello", "protocol": 1, "daemon": "fake",
                             "sensors": {kind: {"available": True, "reason": "fake"} for kind in
                                         (["accelerometer", "gyroscope", "magnetometer"] if behaviour == "neighbours" else ["magnetometer"])},
                             "frames": ["xArbitraryZVertical"]}) + "\n").encode()
        UNKNOWN = b'{"type":"fromTheFuture","n":1}\n'
        def neighbours(conn):
            v = {"x": 0.0, "y": 0.0, "z": -1.0}
            for n in range(200):
                t = 100.0 + n * 0.02
                for kind, field, dt in (("accelerometer", "acceleration", 0), ("gyro", "rotationRate", 2e-7),
                                        ("magnetometer", "magneticField", 4e-7)):
                    conn.sendall((json.dumps({"type": kind, "timestamp": t + dt, field: v}) + "\n").encode())
                time.sleep(0.02)
        printing = threading.Lock()
        def serve(conn, accepted):
            try:
                if behaviour == "half":
                    conn.sendall(HELLO[:20])
                elif behaviour == "unknown":
                    while True:
                        conn.sendall(UNKNOWN)
                        time.sleep(0.05)
                elif behaviour != "silent":
                    conn.sendall(HELLO)
                    if behaviour == "chatter":
                        while True:
                            conn.sendall(UNKNOWN)
                            time.sleep(0.05)
                    for line in conn.makefile("rb"):
                        request = json.loads(line)
                        if behaviour == "wrongid":
                            conn.sendall(b'{"type":"reply","id":999,"ok":true,"interval":0.5}\n')
                        elif behaviour in ("ack", "neighbours"):
                            reply = {"type": "reply", "id": request.get("id"), "ok": True, "interval": 0.5, "available": True}
                            conn.sendall((json.dumps(reply) + "\n").encode())
                            if behaviour == "neighbours" and request.get("stream") == "magnetometer":
                                threading.Thread(target=neighbours, args=(conn,), daemon=True).start()
                while conn.recv(4096):
                    pass
            except OSError:
                pass
            finally:
                with printing:
                    print(f"held {time.monotonic() - accepted:.3f}", flush=True)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        if behaviour == "full":
            server.listen(0)
            fillers = []
            while True:
                filler = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                filler.setblocking(False)
                try:
                    filler.connect(path)
                except BlockingIOError:
                    break
                fillers.append(filler)
            print("listening", flush=True)
            time.sleep(3600)
        server.listen(64)
        print("listening", flush=True)
        while True:
            conn, _ = server.accept()
            threading.Thread(target=serve, args=(conn, time.monotonic()), daemon=True).start()
        """#

    /// A fake server in a temporary directory, listening once this returns.
    final class FakeServer {
        let directory: URL
        let socket: String
        let process: RunningProcess

        init(_ behaviour: String) async throws {
            directory = try Emulation.temporaryDirectory()
            socket = directory.appendingPathComponent("fake.sock").path
            let script = directory.appendingPathComponent("server.py").path
            try MotionCtlDeadlineTests.fakeServer.write(toFile: script, atomically: true, encoding: .utf8)
            process = try RunningProcess(["python3", script, socket, behaviour])
            guard await process.wait(timeout: 20, for: { $0.stdout.contains("listening") }) else {
                throw TestFailure("the fake server did not start: \(process.stderr)")
            }
        }

        /// The `held` times of the first `count` connections that ended (see `fakeServer`).
        func heldSeconds(count: Int) async throws -> [Double] {
            func held(_ stdout: String) -> [Double] {
                stdout.split(separator: "\n").compactMap { $0.hasPrefix("held ") ? Double($0.dropFirst(5)) : nil }
            }
            guard await process.wait(timeout: 20, for: { held($0.stdout).count >= count }) else {
                throw TestFailure("the fake server saw fewer than \(count) connections end: \(process.stdout)")
            }
            return Array(held(process.stdout).prefix(count))
        }

        deinit {
            process.terminate()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// A daemon command against `socket`, with its extra time (beyond the reply deadlines) in
    /// the bound.
    struct Command: Sendable {
        var arguments: [String]
        var ownSeconds: Double
    }

    static func commands(socket: String, directory: URL) -> [Command] {
        [Command(arguments: ["status", "--wait", "2"], ownSeconds: 2),
         Command(arguments: ["get", "accelerometer", "--timeout", "2"], ownSeconds: 2),
         Command(arguments: ["monitor", "accelerometer", "--duration", "3"], ownSeconds: 3),
         Command(arguments: ["record", directory.appendingPathComponent("out.csv").path, "--duration", "2"], ownSeconds: 2),
         Command(arguments: ["calibrate", "--timeout", "2"], ownSeconds: 2)]
            .map { Command(arguments: $0.arguments + ["--socket", socket], ownSeconds: $0.ownSeconds) }
    }

    /// Runs every command at once against `socket`; each must exit `status` with `message` in
    /// its standard error within the reply deadline + its own time + the slack (a hang is cut
    /// off at 60 s and fails).
    static func expectEveryCommand(socket: String, directory: URL, exits status: Int32, saying message: String,
                                   sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await withThrowingTaskGroup(of: (Command, ProcessOutput, Double).self) { group in
            for command in commands(socket: socket, directory: directory) {
                group.addTask {
                    let start = Date()
                    let output = try await Emulation.run([MotionCtlTests.motionctl] + command.arguments, timeout: 60)
                    return (command, output, Date().timeIntervalSince(start))
                }
            }
            for try await (command, output, elapsed) in group {
                let name = command.arguments.prefix(2).joined(separator: " ")
                #expect(output.status == status, "\(name): exit \(output.status), stderr: \(output.stderr)", sourceLocation: sourceLocation)
                #expect(output.stderr.contains(message), "\(name): no '\(message)' in: \(output.stderr)", sourceLocation: sourceLocation)
                let bound = replyTimeout + command.ownSeconds + slack
                #expect(elapsed < bound, "\(name) took \(elapsed) s (bound \(bound) s)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("no hello, half a hello, or only unknown message types: every daemon command exits 69 saying no hello came",
          arguments: ["silent", "half", "unknown"])
    func noHello(behaviour: String) async throws {
        let server = try await FakeServer(behaviour)
        try await Self.expectEveryCommand(socket: server.socket, directory: server.directory, exits: 69, saying: "no hello after connecting within 5 s")
    }

    @Test("a hello, then silence, only unknown messages, or replies to the wrong id: every daemon command exits 69 saying which reply it waited for",
          arguments: ["mute", "chatter", "wrongid"])
    func noReply(behaviour: String) async throws {
        let server = try await FakeServer(behaviour)
        try await Self.expectEveryCommand(socket: server.socket, directory: server.directory, exits: 69, saying: "no reply to ")
    }

    @Test("a server whose queue of pending connections stays full: every daemon command exits 69 once the connect has waited 5 s")
    func fullConnectionQueue() async throws {
        let server = try await FakeServer("full")
        try await Self.expectEveryCommand(socket: server.socket, directory: server.directory, exits: 69,
                                          saying: "its queue of pending connections stayed full for 5.0 s")
    }

    @Test("monitor --duration ends on time, exit 0, when the subscriptions are granted and then nothing arrives")
    func monitorDurationWithoutMessages() async throws {
        let server = try await FakeServer("ack")
        let start = Date()
        let output = try await Emulation.run([MotionCtlTests.motionctl, "monitor", "accelerometer", "orientation", "--duration", "3",
                                              "--socket", server.socket], timeout: 60)
        let elapsed = Date().timeIntervalSince(start)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(elapsed >= 3, "monitor --duration 3 took \(elapsed) s")
        // The upper bound is timed from the server's accept: motionctl's start-up does not count.
        let held = try await server.heldSeconds(count: 1)[0]
        #expect(held < 3 + Self.slack, "monitor --duration 3 held its connection \(held) s")
    }

    @Test("a real motiond stopped with SIGSTOP: status and get exit 69 within the deadline")
    func stoppedDaemon() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"])
        defer {
            kill(daemon.process.pid, SIGCONT)
            _ = daemon.stop()
        }
        let running = try await Emulation.run([MotionCtlTests.motionctl, "status", "--socket", daemon.socket, "--wait", "20"])
        #expect(running.status == 0, "\(running.stderr)")
        #expect(kill(daemon.process.pid, SIGSTOP) == 0)
        for arguments in [["status", "--wait", "2"], ["get", "accelerometer", "--timeout", "2"]] {
            let start = Date()
            let output = try await Emulation.run([MotionCtlTests.motionctl] + arguments + ["--socket", daemon.socket], timeout: 60)
            let elapsed = Date().timeIntervalSince(start)
            #expect(output.status == 69, "\(arguments[0]): exit \(output.status), \(output.stderr)")
            #expect(output.stderr.contains("not answering: no hello after connecting within 5 s"), "\(output.stderr)")
            #expect(elapsed < Self.replyTimeout + 2 + Self.slack, "\(arguments[0]) took \(elapsed) s")
        }
    }

    @Test("--reply-timeout sets the deadline; nan, inf and negative values of time options are usage errors naming the option")
    func replyTimeoutAndTimeOptions() async throws {
        let server = try await FakeServer("silent")
        let output = try await Emulation.run([MotionCtlTests.motionctl, "status", "--reply-timeout", "1", "--socket", server.socket], timeout: 60)
        #expect(output.status == 69, "\(output.stderr)")
        #expect(output.stderr.contains("no hello after connecting within 1 s"), "\(output.stderr)")
        // Timed from the server's accept, so a slow start of motionctl on a loaded machine does
        // not count. The accept may come after motionctl's connect by as long as the machine
        // takes to run the server's thread: the lower bound only says the deadline was waited
        // for, not cut short.
        let held = try await server.heldSeconds(count: 1)[0]
        #expect(held >= 0.5 && held < 1 + Self.slack, "the connection was held \(held) s")

        let cases: [([String], String)] = [
            (["status", "--wait", "nan"], "--wait"), (["status", "--wait", "-1"], "--wait"), (["status", "--wait", "inf"], "--wait"),
            (["status", "--reply-timeout", "0"], "--reply-timeout"), (["status", "--reply-timeout", "nan"], "--reply-timeout"),
            (["monitor", "--interval", "nan"], "--interval"), (["monitor", "--interval", "-0.5"], "--interval"),
            (["monitor", "--duration", "inf"], "--duration"), (["monitor", "--duration", "nan"], "--duration"),
            (["get", "accelerometer", "--timeout", "nan"], "--timeout"), (["get", "accelerometer", "--timeout", "inf"], "--timeout"),
            (["calibrate", "--timeout", "inf"], "--timeout"), (["calibrate", "--timeout", "nan"], "--timeout"),
            (["record", "/tmp/never-written.csv", "--duration", "nan"], "--duration"),
            (["record", "/tmp/never-written.csv", "--duration", "1", "--interval", "nan"], "--interval"),
        ]
        for (arguments, option) in cases + [(["analyze", "--input", "/nonexistent.csv", "--settle-time", "nan"], "--settle-time")] {
            let daemonCommand = arguments[0] != "analyze"
            let refused = try await Emulation.run([MotionCtlTests.motionctl] + arguments + (daemonCommand ? ["--socket", server.socket] : []))
            #expect(refused.status == 64, "\(arguments): exit \(refused.status)")
            #expect(refused.stderr.contains(option), "\(arguments): \(refused.stderr)")
        }
    }
}
