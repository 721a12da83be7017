import Glibc

/// A group of this system's group database (`/etc/group`, or whatever NSS serves), by name and
/// id: the configuration names groups, the kernel's credentials carry ids.
public struct SystemGroup: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var id: gid_t

    public init(name: String, id: gid_t) {
        self.name = name
        self.id = id
    }

    /// The group called `name`, or nil when the system has none.
    public static func named(_ name: String) -> SystemGroup? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 4096)
        while true {
            let code = getgrnam_r(name, &entry, &buffer, buffer.count, &result)
            if code == ERANGE, buffer.count < 1 << 20 {
                buffer = [CChar](repeating: 0, count: buffer.count * 4)
                continue
            }
            guard code == 0, let found = result else { return nil }
            return SystemGroup(name: name, id: found.pointee.gr_gid)
        }
    }

    public var description: String { name }
}
