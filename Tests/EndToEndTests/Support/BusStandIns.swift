import Foundation
import Glibc
@testable import TestSupport

extension SystemBus {
    /// A call to python-dbusmock's control interface of the polkit stand-in (`SimulateHang`,
    /// `ReleaseHangingCalls`, `AddMethod`…) with gdbus's argument syntax; its output.
    func polkitMock(_ method: String, _ arguments: [String] = []) async throws -> ProcessOutput {
        let result = try await Emulation.run(["gdbus", "call", "--system", "--dest", "org.freedesktop.PolicyKit1",
                                              "--object-path", "/org/freedesktop/PolicyKit1/Authority",
                                              "--method", "org.freedesktop.DBus.Mock.\(method)"] + arguments, environment: environment())
        guard result.status == 0 else { throw TestFailure("\(method) failed: \(result.stderr)") }
        return result
    }

    /// The polkit stand-in (``startPolkit(allowing:)``) answering `CheckAuthorization` as
    /// polkitd does for a subject of kind `system-bus-name`: it looks the client up on the bus
    /// (so a client that has left gets polkitd's `NameHasNoOwner` error) and allows root only.
    /// `afterSubjectLeaves`: it first waits (up to 10 s, blocking the stand-in meanwhile) for
    /// the client to leave the bus, the race of a client that goes before polkit answers, made
    /// certain. Its standard output logs every call (`CheckAuthorization …`) and error
    /// (`CheckAuthorization raised: …`). Nil when python3-dbusmock is not installed.
    func startPolkitAllowingRoot(afterSubjectLeaves: Bool = false) async throws -> RunningProcess? {
        guard let polkit = try await startPolkit(allowing: []) else { return nil }
        let code = """
        import dbus, time
        bus = dbus.Interface(self.connection.get_object('org.freedesktop.DBus', '/org/freedesktop/DBus'), 'org.freedesktop.DBus')
        name = args[0][1]['name']
        deadline = time.time() + 10
        while \(afterSubjectLeaves ? "True" : "False") and bus.NameHasOwner(name) and time.time() < deadline:
            time.sleep(0.05)
        ret = (bus.GetConnectionUnixUser(name) == 0, False, {})
        """
        _ = try await polkitMock("AddMethod", ["org.freedesktop.PolicyKit1.Authority", "CheckAuthorization", "(sa{sv})sa{ss}us", "(bba{ss})", code])
        return polkit
    }
}

/// A "system bus" that accepts connections and never says a word: a listening Unix socket in a
/// temporary directory whose connections wait in the kernel's backlog, never accepted, never
/// answered.
final class HungBus: Sendable {
    let directory: URL
    let address: String
    private let descriptor: Int32

    init() throws {
        directory = try Emulation.temporaryDirectory()
        let path = directory.appendingPathComponent("hung_bus_socket").path
        address = "unix:path=\(path)"
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { bytes in
            path.utf8CString.withUnsafeBytes { bytes.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(bytes.count - 1))) }
        }
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard descriptor >= 0, bound == 0, listen(descriptor, 16) == 0 else {
            throw TestFailure("cannot listen on \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        close(descriptor)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Waits up to `timeout` seconds for a connection to be waiting (it stays unanswered).
    func waitForConnection(timeout: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&waiting, 1, 0) > 0 { return true }
            try? await Task.sleep(for: .milliseconds(20))
        } while Date() < deadline
        return false
    }
}
