import Foundation
import Glibc
@testable import TestSupport
import Testing

/// A protocol client running as another user (`Tests/Tools/protocol-client.py` under
/// `setpriv`), optionally inside a login session's cgroup, so the daemon's access policy sees
/// real peer credentials and a real sd-login answer.
struct ForeignClient {
    var uid: UInt32
    var gid: UInt32
    /// Supplementary groups.
    var groups: [UInt32] = []
    /// A cgroup directory the client moves itself into before it drops privileges (a login
    /// session's `session-ID.scope`).
    var cgroup: String?

    /// Root, and the tools a client of another user needs.
    static let available = geteuid() == 0 && ["setpriv", "python3"].allSatisfy { tool in
        ["/usr/bin", "/bin"].contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
    }
    static let needs: Comment = "needs root, setpriv (util-linux) and python3 to run clients as other users"

    /// The client's command: `steps` as protocol-client.py takes them. The script is copied into
    /// `directory`, which every user can read (the checkout may not be).
    func command(socket: String, steps: [String], directory: URL) throws -> [String] {
        let script = directory.appendingPathComponent("protocol-client.py")
        if !FileManager.default.fileExists(atPath: script.path) {
            try FileManager.default.copyItem(atPath: Emulation.packageRoot.appendingPathComponent("Tests/Tools/protocol-client.py").path,
                                             toPath: script.path)
        }
        let client = setpriv + ["/usr/bin/python3", script.path, socket] + steps
        guard let cgroup else { return client }
        let quoted = client.map(Emulation.shellQuote).joined(separator: " ")
        return ["sh", "-c", "echo $$ > \(Emulation.shellQuote(cgroup))/cgroup.procs && exec \(quoted)"]
    }

    /// `motionctl ARGS` as this user (the binary copied into `directory`).
    func motionctl(_ arguments: [String], directory: URL) async throws -> ProcessOutput {
        let binary = directory.appendingPathComponent("motionctl")
        if !FileManager.default.fileExists(atPath: binary.path) {
            try FileManager.default.copyItem(atPath: URL(fileURLWithPath: Emulation.motiond).deletingLastPathComponent()
                .appendingPathComponent("motionctl").path, toPath: binary.path)
        }
        return try await Emulation.run(setpriv + [binary.path] + arguments)
    }

    /// The command prefix that runs a program as this user with these groups.
    private var setpriv: [String] {
        ["setpriv", "--reuid=\(uid)", "--regid=\(gid)",
         groups.isEmpty ? "--clear-groups" : "--groups=\(groups.map(String.init).joined(separator: ","))"]
    }

    /// Runs the client to its end; every line the daemon sent, parsed, then the client's own
    /// last line (`{"client":"closed"}` or `{"client":"done"}`).
    func run(socket: String, steps: [String], directory: URL) async throws -> [[String: Any]] {
        let output = try await Emulation.run(try command(socket: socket, steps: steps, directory: directory), timeout: 30)
        guard output.status == 0 else { throw TestFailure("client uid \(uid) failed (\(output.status)): \(output.stderr)") }
        return try Self.messages(output.stdout)
    }

    static func messages(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw TestFailure("not a JSON object: \(line)")
            }
            return object
        }
    }
}

extension [[String: Any]] {
    /// The reply with `id`.
    func reply(_ id: Int) -> [String: Any]? {
        first { $0["type"] as? String == "reply" && $0["id"] as? Int == id }
    }

    /// Messages of `type`.
    func of(type: String) -> [[String: Any]] {
        filter { $0["type"] as? String == type }
    }

    /// The hello's `access` object.
    var access: [String: Any]? {
        of(type: "hello").first?["access"] as? [String: Any]
    }

    var closedByDaemon: Bool { last?["client"] as? String == "closed" }
}

/// The error code of a reply.
func errorCode(_ reply: [String: Any]?) -> String? {
    (reply?["error"] as? [String: Any])?["code"] as? String
}
