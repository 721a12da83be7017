import Foundation
import Glibc
import MotionProtocol
@testable import TestSupport
import Testing

/// The access policy end to end: a real motiond with a configuration file, clients running as
/// other users (setpriv), peer credentials from the kernel, login sessions from sd-login
/// reading a private /run/systemd/sessions and the clients' real cgroups.
@Suite("Access policy: tiers by peer credentials and login session", .enabled(if: ForeignClient.available, ForeignClient.needs))
struct AccessTests {
    /// `adm` exists on every Debian system (base-passwd); the test users exist nowhere, which
    /// the kernel does not mind.
    static let group = (name: "adm", id: UInt32(4))
    static let member = ForeignClient(uid: 4242, gid: 4242, groups: [group.id])
    static let stranger = ForeignClient(uid: 4243, gid: 4243)

    @Test("group members (a supplementary group), root and the daemon's user get every stream; others orientation, tilt, shake and availability, and accessDenied for the rest; the socket gets the configured group")
    func groupAndOthers() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"], configuration: """
            [socket]
            group = "\(Self.group.name)"
            [access]
            group = "\(Self.group.name)"
            active-session-rate = 0
            """)
        defer { _ = daemon.stop() }
        let directory = daemon.directory
        let root = try await daemon.connect()
        try await root.send(.status(id: 1))
        #expect(try await root.reply(1)?["ok"] as? Bool == true)

        var info = stat()
        #expect(stat(daemon.socket, &info) == 0)
        #expect(info.st_gid == Self.group.id, "socket group")
        #expect(info.st_mode & 0o777 == 0o666, "socket mode")

        let member = try await Self.member.run(socket: daemon.socket, steps: [
            #"{"op":"subscribe","id":1,"stream":"gyro","interval":0.01}"#, "read=0.5",
        ], directory: directory)
        #expect(member.access?["tier"] as? String == "full", "\(member.access ?? [:])")
        #expect(member.reply(1)?["ok"] as? Bool == true)
        #expect(member.of(type: "gyro").count >= 20, "100 Hz for 0.5 s")

        let stranger = try await Self.stranger.run(socket: daemon.socket, steps: [
            #"{"op":"subscribe","id":1,"stream":"gyro"}"#,
            #"{"op":"get","id":2,"stream":"deviceMotion"}"#,
            #"{"op":"subscribe","id":3,"stream":"gesture"}"#,
            #"{"op":"subscribe","id":4,"stream":"orientation"}"#,
            #"{"op":"subscribe","id":5,"stream":"shake"}"#,
            #"{"op":"subscribe","id":6,"stream":"availability"}"#,
            #"{"op":"status","id":7}"#,
        ], directory: directory)
        #expect(stranger.access?["tier"] as? String == "coarse")
        #expect(Set(stranger.access?["streams"] as? [String] ?? []) == ["orientation", "tilt", "shake", "availability"])
        for id in 1...3 {
            #expect(errorCode(stranger.reply(id)) == "accessDenied", "request \(id): \(stranger.reply(id) ?? [:])")
        }
        let denial = (stranger.reply(1)?["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(denial.contains("gyro") && denial.contains("orientation, tilt, shake, availability"), "\(denial)")
        for id in 4...7 {
            #expect(stranger.reply(id)?["ok"] as? Bool == true, "request \(id): \(stranger.reply(id) ?? [:])")
        }
        #expect(stranger.of(type: "gyro").isEmpty && stranger.of(type: "deviceMotion").isEmpty)
        // motionctl tells scripts: EX_NOPERM.
        let monitor = try await Self.stranger.motionctl(["monitor", "--socket", daemon.socket, "--duration", "1", "orientation", "gyro"],
                                                        directory: directory)
        #expect(monitor.status == 77, "\(monitor.stderr)")
        #expect(monitor.stderr.contains("gyro: not available to this connection"), "\(monitor.stderr)")

        // Every connection's credentials are in the log, with journal fields.
        let log = daemon.process.stderr
        #expect(log.contains("client_uid=4242") && log.contains("uid 4242, gid 4242): full (every stream) access, member of group adm"), "\(log)")
        #expect(log.contains("client_uid=4243") && log.contains("coarse (orientation, tilt, shake, availability) access"), "\(log)")
    }

    @Test("others = \"none\": a client outside the group gets accessDenied, a goodbye and an end of file (no reset, even with its request unread)")
    func othersNone() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"], configuration: """
            [access]
            group = "\(Self.group.name)"
            others = "none"
            """)
        defer { _ = daemon.stop() }
        let directory = daemon.directory
        _ = try await daemon.connect()

        let stranger = try await Self.stranger.run(socket: daemon.socket, steps: [#"{"op":"status","id":1}"#], directory: directory)
        #expect(stranger.of(type: "hello").isEmpty)
        let refusal = stranger.first { $0["type"] as? String == "reply" }
        #expect(errorCode(refusal) == "accessDenied", "\(stranger)")
        #expect(refusal?["id"] is NSNull)
        #expect(stranger.of(type: "goodbye").first?["reason"] as? String == "access denied")
        #expect(stranger.closedByDaemon)
        // A stranger whose request is queued before the daemon accepts it: still the refusal,
        // the goodbye and an end of file — not a reset for the request the daemon never read
        // (the client would die of ConnectionResetError).
        let eager = try await Self.stranger.run(socket: daemon.socket, steps: ["no-hello", #"{"op":"status","id":1}"#], directory: directory)
        #expect(errorCode(eager.first { $0["type"] as? String == "reply" }) == "accessDenied", "\(eager)")
        #expect(eager.of(type: "goodbye").first?["reason"] as? String == "access denied", "\(eager)")
        #expect(eager.closedByDaemon)

        let monitor = try await Self.stranger.motionctl(["monitor", "--socket", daemon.socket, "--duration", "1", "orientation"],
                                                        directory: directory)
        #expect(monitor.status == 77, "\(monitor.stderr)")
        #expect(monitor.stderr.contains("motiond refuses this user"), "\(monitor.stderr)")

        let member = try await Self.member.run(socket: daemon.socket, steps: [#"{"op":"status","id":1}"#], directory: directory)
        #expect(member.reply(1)?["ok"] as? Bool == true, "\(member)")
    }

    /// The cgroup hierarchy sd-login reads a process's session from: the unified one (cgroup v2,
    /// or hybrid's /sys/fs/cgroup/unified), else v1's name=systemd.
    static let cgroupRoot = ["/sys/fs/cgroup/unified", "/sys/fs/cgroup", "/sys/fs/cgroup/systemd"].first {
        FileManager.default.fileExists(atPath: "\($0)/cgroup.procs")
    }

    @Test("the active local session gets every stream at most at the configured rate, pulls included; an inactive, remote, foreign or absent session gets the coarse streams",
          .enabled(if: cgroupRoot != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"), "needs a writable cgroup hierarchy and unshare"))
    func activeSession() async throws {
        let tag = String(UInt32.random(in: 1...UInt32.max))
        // Sessions as logind records them, and a cgroup per session for its processes.
        let sessions = [(id: "a\(tag)", uid: 4242, active: 1, remote: 0), (id: "i\(tag)", uid: 4243, active: 0, remote: 0),
                        (id: "r\(tag)", uid: 4244, active: 1, remote: 1)]
        let slice = "\(try #require(Self.cgroupRoot))/motiond-test-\(tag).slice"
        func scope(_ id: String) -> String { "\(slice)/session-\(id).scope" }
        // Made and removed by child processes: with umockdev's preload in this process (hot-plug
        // tests run beside this one), its own file calls on /sys may land in a testbed's tree.
        let scopes = sessions.map { scope($0.id) }
        let made = try await Emulation.run(["mkdir", "-p"] + scopes)
        guard made.status == 0 else { throw TestFailure("cannot make the session cgroups: \(made.stderr)") }
        defer {
            // Every process in them has exited by now (the daemon's defer runs first).
            let remove = Process()
            remove.executableURL = URL(fileURLWithPath: "/bin/rmdir")
            remove.arguments = scopes + [slice]
            remove.environment = RunningProcess.plainEnvironment
            try? remove.run()
        }
        let namespace = ["sh", Emulation.packageRoot.appendingPathComponent("Tests/Tools/session-namespace.sh").path]
            + sessions.flatMap { ["--session", "\($0.id):\($0.uid):\($0.active):\($0.remote)"] } + ["--"]
        let daemon = try ServedDaemon(["--source", "sim:"], configuration: """
            [access]
            active-session-rate = 20
            """, prefix: namespace)
        defer { _ = daemon.stop() }
        let directory = daemon.directory
        // Root reads the gyroscope at 100 Hz: the capped client's pulls see a fast sensor.
        let root = try await daemon.connect()
        try await root.send(.subscribe(.init(id: 1, stream: .gyro, interval: 0.01)))
        #expect(try await root.reply(1)?["ok"] as? Bool == true)

        let person = ForeignClient(uid: 4242, gid: 4242, cgroup: scope(sessions[0].id))
        let seen = try await person.run(socket: daemon.socket, steps: [
            #"{"op":"get","id":1,"stream":"gyro"}"#, #"{"op":"get","id":2,"stream":"gyro"}"#, "sleep=0.1",
            #"{"op":"get","id":3,"stream":"gyro"}"#,
            #"{"op":"subscribe","id":4,"stream":"gyro","interval":0.01}"#, "read=1",
        ], directory: directory)
        #expect(seen.access?["tier"] as? String == "activeSession", "\(daemon.process.stderr)")
        #expect(seen.access?["minimumInterval"] as? Double == 0.05)
        #expect((seen.access?["streams"] as? [String])?.count == StreamName.allCases.count)
        #expect(seen.reply(4)?["interval"] as? Double == 0.05, "granted 20 Hz, not the 100 Hz asked")
        let pulled = (1...3).map { (seen.reply($0)?["sample"] as? [String: Any])?["timestamp"] as? Double ?? -1 }
        #expect(pulled[0] > 0 && pulled[1] == pulled[0], "a second pull within 50 ms returns the same value: \(pulled)")
        #expect(pulled[2] >= pulled[0] + 0.05, "a pull 100 ms later returns a newer one: \(pulled)")
        let times = seen.of(type: "gyro").compactMap { $0["timestamp"] as? Double }
        #expect((14...26).contains(times.count), "about 20 values in 1 s, not 100: \(times.count)")
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 0.045 }, "\(times)")

        let others = [
            (ForeignClient(uid: 4243, gid: 4243, cgroup: scope(sessions[1].id)), "is not the active one"),
            (ForeignClient(uid: 4244, gid: 4244, cgroup: scope(sessions[2].id)), "is remote"),
            (ForeignClient(uid: 4245, gid: 4245, cgroup: scope(sessions[0].id)), "belongs to uid 4242"),
            (ForeignClient(uid: 4242, gid: 4242), "not in a login session"),
        ]
        for (client, reason) in others {
            let messages = try await client.run(socket: daemon.socket, steps: [#"{"op":"subscribe","id":1,"stream":"gyro"}"#], directory: directory)
            #expect(messages.access?["tier"] as? String == "coarse", "uid \(client.uid): \(messages.access ?? [:])")
            #expect(errorCode(messages.reply(1)) == "accessDenied")
            #expect(daemon.process.stderr.contains(reason), "uid \(client.uid): \(reason)")
        }
    }

    @Test("SIGHUP: a changed policy disconnects the clients it changes and applies the socket's new mode; a bad file keeps everything as it was; restart-only settings are named")
    func reload() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"], configuration: """
            [access]
            group = "\(Self.group.name)"
            active-session-rate = 0
            """)
        defer { _ = daemon.stop() }
        let directory = daemon.directory
        let root = try await daemon.connect()
        try await root.send(.subscribe(.init(id: 1, stream: .orientation)))
        #expect(try await root.reply(1)?["ok"] as? Bool == true)

        // Both stay connected across the reload; only the stranger's access changes.
        let steps = [#"{"op":"subscribe","id":1,"stream":"orientation"}"#, "read=30"]
        let stranger = try RunningProcess(try Self.stranger.command(socket: daemon.socket, steps: steps, directory: directory))
        let member = try RunningProcess(try Self.member.command(socket: daemon.socket, steps: steps, directory: directory))
        defer {
            // Only after a failure: terminate() waits on this thread.
            stranger.terminate()
            member.terminate()
        }
        #expect(await stranger.wait(timeout: 5) { $0.stdout.contains(#""id":1,"ok":true"#) })
        #expect(await member.wait(timeout: 5) { $0.stdout.contains(#""id":1,"ok":true"#) })

        // A file that cannot be used: nothing changes, the log names the file, line and key.
        try """
            [access]
            others = "nobody"
            """.write(toFile: daemon.configurationPath, atomically: true, encoding: .utf8)
        kill(daemon.process.pid, SIGHUP)
        #expect(await daemon.process.wait(timeout: 5) { $0.stderr.contains("configuration not reloaded, the one in use stays: \(daemon.configurationPath):2: access.others") },
                "\(daemon.process.stderr)")
        #expect(stranger.isRunning && !stranger.stdout.contains("goodbye"))

        try """
            sensors = ["accelerometer"]
            [socket]
            mode = "0660"
            [access]
            group = "\(Self.group.name)"
            others = "none"
            """.write(toFile: daemon.configurationPath, atomically: true, encoding: .utf8)
        kill(daemon.process.pid, SIGHUP)
        #expect(await stranger.wait(timeout: 5) { !$0.stdout.isEmpty && $0.status == 0 },
                "the stranger is disconnected: \(stranger.stdout)")
        let ended = try ForeignClient.messages(stranger.stdout)
        #expect(ended.of(type: "goodbye").first?["reason"] as? String == "access policy changed: reconnect")
        #expect(ended.closedByDaemon)
        let log = daemon.process.stderr
        #expect(log.contains("configuration reloaded (changed: socket.mode, access)"), "\(log)")
        #expect(log.contains("take effect only when motiond restarts: sensors"), "\(log)")
        var info = stat()
        #expect(stat(daemon.socket, &info) == 0 && info.st_mode & 0o777 == 0o660)

        // The member and root keep their connections and their data.
        #expect(member.isRunning && !member.stdout.contains("goodbye"))
        try await root.send(.status(id: 2))
        #expect(try await root.reply(2)?["ok"] as? Bool == true)
        kill(member.pid, SIGKILL)
        #expect(await member.wait(timeout: 5) { _ in !member.isRunning })
    }
}

