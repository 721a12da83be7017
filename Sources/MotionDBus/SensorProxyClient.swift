import CSDBus
import Glibc
import MotionSync

/// A client of `net.hadess.SensorProxy` on the system bus, whichever daemon owns the name
/// (iio-sensor-proxy or motiond's D-Bus face): follows the name's owner, reads the objects'
/// properties, claims sensors, and hands on the owner's `PropertiesChanged` signals in the
/// order they came, as GLib's `GDBusProxy` and `g_bus_watch_name` do for iio-sensor-proxy's
/// own `monitor-sensor`. sd-bus honours `DBUS_SYSTEM_BUS_ADDRESS` (a private bus in tests).
///
/// One thread, no dispatch queue: every call blocks until its reply (sd-bus's 25 s default
/// timeout), and the signals that arrive meanwhile wait for ``nextEvents()``, so values read
/// before a claim are shown before the changes the claim brought.
public final class SensorProxyClient {
    /// One of the API's two objects.
    public enum Object: Sendable, CaseIterable {
        /// `/net/hadess/SensorProxy`, interface `net.hadess.SensorProxy`.
        case main
        /// `/net/hadess/SensorProxy/Compass`, interface `net.hadess.SensorProxy.Compass`.
        case compass

        var path: String { self == .main ? SensorProxyObjects.mainPath : SensorProxyObjects.compassPath }
        var interface: String { self == .main ? SensorProxyObjects.mainInterface : SensorProxyObjects.compassInterface }
    }

    /// What happened on the bus, in order.
    public enum Event: Sendable, Equatable {
        /// The name has a new owner (its unique name), or none (nil).
        case ownerChanged(String?)
        /// The name's owner changed properties of `object`.
        case propertiesChanged(Object, changed: SensorProxyProperties, invalidated: [String])
    }

    /// A bus failure or an error reply, with D-Bus's error name when there is one.
    public typealias Failure = SystemBus.Failure

    private let bus: OpaquePointer
    private var slots: [OpaquePointer] = []
    private var events: [Event] = []
    /// The unique name of the name's owner as the signals so far say.
    private var owner: String?

    /// Connects to the system bus and starts following the name.
    public init() throws(Failure) {
        var opened: OpaquePointer?
        let result = sd_bus_open_system(&opened)
        guard result >= 0, let opened else { throw Failure(description: "cannot connect to the system bus: \(SystemError(result))") }
        bus = opened
        let context = Unmanaged.passUnretained(self).toOpaque()
        try addMatch("type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
                     + "member='NameOwnerChanged',arg0='\(SensorProxyObjects.busName)'", context) { message, context, _ in
            guard let message, let context else { return 0 }
            Unmanaged<SensorProxyClient>.fromOpaque(context).takeUnretainedValue().ownerChanged(BusMessage(retaining: message))
            return 0
        }
        try addMatch("type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                     + "path_namespace='\(SensorProxyObjects.mainPath)'", context) { message, context, _ in
            guard let message, let context else { return 0 }
            Unmanaged<SensorProxyClient>.fromOpaque(context).takeUnretainedValue().propertiesChanged(BusMessage(retaining: message))
            return 0
        }
        owner = try currentOwner()
    }

    deinit {
        for slot in slots { sd_bus_slot_unref(slot) }
        sd_bus_flush_close_unref(bus)
    }

    /// The unique name of the name's owner when this client connected (nil: none); later
    /// owners come as ``Event/ownerChanged(_:)``.
    public var initialOwner: String? { owner }

    /// All properties of `object` (`GetAll`).
    public func properties(of object: Object) throws(Failure) -> SensorProxyProperties {
        let reply = try call(SensorProxyObjects.busName, object.path, "org.freedesktop.DBus.Properties", "GetAll", argument: object.interface)
        guard let values = reply.readProperties() else { throw Failure(description: "GetAll of \(object.interface) answered no property dictionary") }
        return SensorProxyProperties(values)
    }

    /// Calls `method` (`ClaimAccelerometer`, `ReleaseLight`, …) of `object`, without arguments.
    public func call(_ method: String, on object: Object) throws(Failure) {
        _ = try call(SensorProxyObjects.busName, object.path, object.interface, method, argument: nil)
    }

    /// The events that came since the last call, waiting for at least one.
    public func nextEvents() throws(Failure) -> [Event] {
        while events.isEmpty {
            let processed = sd_bus_process(bus, nil)
            if processed < 0 { throw Failure(description: "the system bus connection ended: \(SystemError(processed))") }
            if processed > 0 { continue }
            let waited = sd_bus_wait(bus, .max)
            if waited < 0 && waited != -EINTR { throw Failure(description: "the system bus connection ended: \(SystemError(waited))") }
        }
        defer { events = [] }
        return events
    }

    // MARK: - Private

    private func addMatch(_ rule: String, _ context: UnsafeMutableRawPointer, _ handler: sd_bus_message_handler_t) throws(Failure) {
        var slot: OpaquePointer?
        let result = sd_bus_add_match(bus, &slot, rule, handler, context)
        guard result >= 0, let slot else { throw Failure(description: "cannot follow \(SensorProxyObjects.busName) on the system bus: \(SystemError(result))") }
        slots.append(slot)
    }

    private func currentOwner() throws(Failure) -> String? {
        do {
            return try call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                            argument: SensorProxyObjects.busName).readString()
        } catch where error.description.hasPrefix("org.freedesktop.DBus.Error.NameHasNoOwner") {
            return nil
        }
    }

    private func call(_ destination: String, _ path: String, _ interface: String, _ member: String, argument: String?) throws(Failure) -> BusMessage {
        try SystemBus.call(on: bus, destination, path, interface, member, argument: argument)
    }

    private func ownerChanged(_ message: BusMessage) {
        guard message.readString() == SensorProxyObjects.busName, message.readString() != nil, let new = message.readString() else { return }
        owner = new.isEmpty ? nil : new
        events.append(.ownerChanged(owner))
    }

    private func propertiesChanged(_ message: BusMessage) {
        // Only the owner's, as GDBusProxy takes them; and only for the two objects' interfaces.
        let path = sd_bus_message_get_path(message.pointer).map { String(cString: $0) }
        guard let sender = message.sender, sender == owner, let interface = message.readString(),
              let object = Object.allCases.first(where: { $0.interface == interface && $0.path == path }),
              let changed = message.readProperties(), let invalidated = message.readStrings() else { return }
        events.append(.propertiesChanged(object, changed: SensorProxyProperties(changed), invalidated: invalidated))
    }
}
