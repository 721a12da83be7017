import CSDBus
import Dispatch
import Glibc
import Logging
import MotionSync

/// iio-sensor-proxy's D-Bus API, `net.hadess.SensorProxy` (docs/DBUS.md), over sd-bus: the
/// two objects and their properties, claims counted per bus client (released when the client
/// leaves the bus), `Claim…` replies held until the sensor's first reading, polkit
/// authorisation of every claim and release (a few checks per client at a time:
/// ``AuthorizationQueue``), `PropertiesChanged` sent only to the clients that claim the sensor
/// a property belongs to and only when a value changed. What one client makes it log is
/// bounded (``LogAllowance``).
///
/// Everything runs on one serial queue, `motiond.dbus`, woken by the bus socket (and a timer
/// only while sd-bus waits for a reply's timeout): an idle face adds no wake-ups. No call waits
/// for the bus on that queue (the connection's set-up included), so a bus that never answers
/// holds nothing up, and ``stop()`` waits at most ``stopTimeout`` seconds whatever the bus
/// does. The name is queued for when another process owns it; a lost bus connection is retried
/// with back-off.
///
/// `@unchecked Sendable`: every mutable property below, the sd-bus objects included (sd-bus is
/// not thread-safe), is touched only on `queue`; sd-bus calls back only from `sd_bus_process`,
/// which runs there; the confined methods assert it in debug builds. `make check-tsan` runs its
/// tests.
public final class SensorProxyService: @unchecked Sendable {
    private let queue = DispatchQueue(label: "motiond.dbus")
    private let backend: any SensorProxyBackend
    private let logger: Logger
    private let handlers: UnsafeMutablePointer<csdbus_handlers>
    /// How long a claim waits for its sensor's first reading before it is answered anyway.
    static let firstReadingTimeout = 2.0
    /// The longest ``stop()`` waits for the face to close (seconds).
    static let stopTimeout = 1.5
    /// How often a polkit check the bus refused to pass on is asked again before the call
    /// gets an error (`LimitsExceeded`, never `AccessDenied`).
    static let busyAttempts = 50

    // Confined to `queue`.
    private var bus: OpaquePointer?
    private var slots: [OpaquePointer] = []
    private var reader: DispatchSourceRead?
    /// Armed only while sd-bus has output the socket did not take yet.
    private var writer: DispatchSourceWrite?
    private var timer: DispatchSourceTimer?
    private var retryDelay = 1.0
    private var started = false
    private var state = SensorProxyState()
    private var claims = ClaimTable()
    /// Sensors whose readings flow since their first claim (a new claim is answered at once).
    private var reading: Set<ProxySensor> = []
    private var pending: [ProxySensor: [PendingClaim]] = [:]
    private var polkitAbsentLogged = false
    /// Counts connections: a callback of an earlier one is recognised and ignored.
    private var generation = 0
    /// Whether the bus has answered on this connection (its answer to the name request).
    private var busAnswered = false
    private var authorizations = AuthorizationQueue<PolkitCheck>()
    /// What ``update(_:readings:)`` handed to `queue` (taken on the pipeline's queue, forgotten
    /// on this one as sensors stop).
    private let news = Lock(SensorProxyNews())
    private var logAllowance = LogAllowance()

    private var nextPendingID = 0

    /// A `Claim…`/`Release…` call waiting for polkit's answer (or its turn to ask).
    private struct PolkitCheck {
        let call: BusMessage
        let member: String
        let method: ProxyMethod
        let sender: String
        /// Times the bus refused to pass the question on.
        var busy = 0
    }

    /// A `Claim…` call waiting for the sensor's first reading (holding a reference to it).
    private struct PendingClaim {
        let id: Int
        let call: BusMessage
        let sender: String
    }

    /// Serves on the system bus (sd-bus honours `DBUS_SYSTEM_BUS_ADDRESS`, as the tests use).
    public init(backend: any SensorProxyBackend, logger: Logger) {
        self.backend = backend
        self.logger = logger
        handlers = .allocate(capacity: 1)
        handlers.initialize(to: csdbus_handlers(method: { call, context, error in
            guard let call, let context else { return -EINVAL }
            return Unmanaged<SensorProxyService>.fromOpaque(context).takeUnretainedValue().method(BusMessage(retaining: call), error)
        }, property: { path, property, reply, context, error in
            guard let property, let reply, let context else { return -EINVAL }
            return Unmanaged<SensorProxyService>.fromOpaque(context).takeUnretainedValue().property(String(cString: property), BusMessage(retaining: reply), error)
        }, context: nil))
        handlers.pointee.context = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        handlers.deinitialize(count: 1)
        handlers.deallocate()
    }

    /// Connects, offers the objects and asks for the name. Never fails: problems are logged and
    /// retried.
    public func start() {
        queue.async { [self] in
            started = true
            connect()
        }
    }

    /// Gives the name up and closes the connection; pending claims get an error. Blocks until
    /// done, or ``stopTimeout`` seconds at most (then it says so and returns: the closing
    /// finishes on its own queue); safe if never started.
    public func stop() {
        queue.assertNotOnQueue()
        let closed = DispatchSemaphore(value: 0)
        queue.async { [self] in
            started = false
            for sensor in ProxySensor.allCases { failPending(sensor, "motiond is stopping") }
            disconnect()
            closed.signal()
        }
        if closed.wait(timeout: .now() + Self.stopTimeout) == .timedOut {
            logger.warning("the D-Bus face did not close within \(Self.stopTimeout) s (the system bus does not answer): not waiting for it")
        }
    }

    /// New property values (from any thread; never blocks). `readings`: the sensors this
    /// update brings a fresh reading of: their waiting claims are answered now.
    public func update(_ new: SensorProxyState, readings: Set<ProxySensor>) {
        guard news.withLock({ $0.take(new, readings: readings) }) else { return }
        queue.async { [self] in
            let old = state
            state = new
            for sensor in ProxySensor.allCases {
                let changed = new.changed(sensor, from: old)
                guard !changed.isEmpty else { continue }
                let presenceChanged = changed.contains(sensor.presenceProperty)
                // Presence is news for every client (a client that claims nothing must learn a
                // sensor appeared); values only for the sensor's claimants.
                if presenceChanged { emit(sensor, [sensor.presenceProperty], to: nil) }
                let values = changed.filter { $0 != sensor.presenceProperty }
                for client in claims.claimants(of: sensor) where !values.isEmpty { emit(sensor, values, to: client) }
                if presenceChanged, !new.has(sensor) { sensorRemoved(sensor) }
            }
            for sensor in readings where claims.isClaimed(sensor) {
                reading.insert(sensor)
                answerPending(sensor)
            }
            flush()
        }
    }

    // MARK: - Connection (on `queue`)

    private func connect() {
        queue.assertOnQueue()
        guard started, bus == nil else { return }
        var opened: OpaquePointer?
        var result = sd_bus_open_system(&opened)
        guard result >= 0, let opened else {
            if let opened { sd_bus_unref(opened) }
            retry("cannot connect to the system bus: \(SystemError(result))")
            return
        }
        bus = opened
        generation += 1
        busAnswered = false
        // From here on nothing waits for the bus: the calls below are queued and sent once
        // the connection is up, their answers handled in process().
        var main: OpaquePointer?, compass: OpaquePointer?
        result = csdbus_add_sensor_proxy(opened, &main, &compass, handlers)
        if result >= 0, let main, let compass { slots += [main, compass] }
        let context = Unmanaged.passUnretained(self).toOpaque()
        var watch: OpaquePointer?
        if result >= 0 {
            // A client that leaves the bus releases what it claimed.
            result = sd_bus_match_signal_async(opened, &watch, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                               "NameOwnerChanged", { message, context, _ in
                guard let message, let context else { return 0 }
                Unmanaged<SensorProxyService>.fromOpaque(context).takeUnretainedValue().nameOwnerChanged(BusMessage(retaining: message))
                return 0
            }, nil, context)
            if let watch { slots.append(watch) }
        }
        var acquired: OpaquePointer?
        if result >= 0 {
            result = sd_bus_match_signal_async(opened, &acquired, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                               "NameAcquired", { message, context, _ in
                guard let message, let context, BusMessage(retaining: message).readString() == SensorProxyObjects.busName else { return 0 }
                Unmanaged<SensorProxyService>.fromOpaque(context).takeUnretainedValue().logger.notice(
                    "serving \(SensorProxyObjects.busName) on the system bus (iio-sensor-proxy's API)")
                return 0
            }, nil, context)
            if let acquired { slots.append(acquired) }
        }
        guard result >= 0 else {
            retry("cannot serve \(SensorProxyObjects.busName): \(SystemError(result))")
            return
        }
        // Queued behind another owner (iio-sensor-proxy) when there is one: NameAcquired says
        // when it is ours.
        var request: OpaquePointer?
        result = sd_bus_request_name_async(opened, &request, SensorProxyObjects.busName, UInt64(SD_BUS_NAME_QUEUE), { reply, context, _ in
            guard let reply, let context else { return 0 }
            Unmanaged<SensorProxyService>.fromOpaque(context).takeUnretainedValue().nameRequested(BusMessage(retaining: reply))
            return 0
        }, context)
        if let request { slots.append(request) }
        if result < 0 {
            retry("cannot ask for \(SensorProxyObjects.busName): \(SystemError(result))")
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: sd_bus_get_fd(opened), queue: queue)
        source.setEventHandler { [unowned self] in process() }
        source.resume()
        reader = source
        process()
    }

    /// The bus answered the request for the name.
    private func nameRequested(_ reply: BusMessage) {
        queue.assertOnQueue()
        busAnswered = true
        if let error = reply.error {
            let why = "cannot ask for \(SensorProxyObjects.busName): \(error.name): \(error.message) (is the D-Bus policy installed? dbus/net.hadess.SensorProxy.conf)"
            // Not inside sd_bus_process (which called us): the connection closes after it.
            let current = generation
            queue.async { [self] in if generation == current, bus != nil { retry(why) } }
            return
        }
        retryDelay = 1
        // DBUS_REQUEST_NAME_REPLY_IN_QUEUE
        if reply.readUInt32() == 2 {
            logger.warning("\(SensorProxyObjects.busName) is owned by another process (iio-sensor-proxy?): motiond waits for it and serves it once it is released")
        }
    }

    /// Closes the connection: its clients are gone with it, so every claim ends.
    private func disconnect() {
        queue.assertOnQueue()
        reader?.cancel()
        reader = nil
        writer?.cancel()
        writer = nil
        timer?.cancel()
        timer = nil
        for sensor in ProxySensor.allCases where claims.isClaimed(sensor) || reading.contains(sensor) {
            failPending(sensor, "the bus connection was lost")
            if claims.clear(sensor) || reading.contains(sensor) { backend.stopReading(sensor) }
        }
        reading = []
        news.withLock { $0.stopped(ProxySensor.allCases) }
        // The checks asked on this connection are answered to nobody now.
        authorizations = AuthorizationQueue()
        for slot in slots { sd_bus_slot_unref(slot) }
        slots = []
        if let bus {
            // What is queued (answers to waiting claims) goes out first on a working bus; one
            // that never completed the connection is not waited for (sd-bus would wait up to
            // its 90 s authentication timeout).
            if sd_bus_is_ready(bus) > 0 {
                sd_bus_flush(bus)
            } else if !busAnswered {
                logger.notice("the system bus never completed motiond's connection (no answer from it): closed without waiting for it")
            }
            sd_bus_close_unref(bus)
        }
        bus = nil
    }

    private func retry(_ why: String) {
        queue.assertOnQueue()
        disconnect()
        guard started else { return }
        logger.error("\(why); trying again in \(Int(retryDelay)) s")
        queue.asyncAfter(deadline: .now() + retryDelay) { [weak self] in self?.connect() }
        retryDelay = min(retryDelay * 2, 30)
    }

    /// Handles everything the bus has for us and sends what the socket takes (sd_bus_process
    /// writes without waiting), then watches for the socket to take the rest, if any, and arms
    /// the timer sd-bus asks for (a pending call's timeout, the connection's set-up), if any.
    private func process() {
        queue.assertOnQueue()
        guard let bus else { return }
        while true {
            let result = sd_bus_process(bus, nil)
            if result < 0 {
                retry("the system bus connection ended: \(SystemError(result))")
                return
            }
            if result == 0 { break }
        }
        flush()
    }

    private func flush() {
        queue.assertOnQueue()
        guard let bus else { return }
        // Not sd_bus_flush: it waits for the connection to be up, however long the bus takes.
        let events = sd_bus_get_events(bus)
        if events > 0, events & Int32(POLLOUT) != 0 {
            if writer == nil {
                let source = DispatchSource.makeWriteSource(fileDescriptor: sd_bus_get_fd(bus), queue: queue)
                source.setEventHandler { [unowned self] in process() }
                source.resume()
                writer = source
            }
        } else if let writer {
            writer.cancel()
            self.writer = nil
        }
        var usec: UInt64 = 0
        guard sd_bus_get_timeout(bus, &usec) >= 0, usec != .max else {
            timer?.cancel()
            timer = nil
            return
        }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowUsec = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        let delay = usec > nowUsec ? Int(usec - nowUsec) : 0
        if timer == nil {
            let source = DispatchSource.makeTimerSource(queue: queue)
            source.setEventHandler { [unowned self] in process() }
            source.resume()
            timer = source
        }
        timer?.schedule(deadline: .now() + .microseconds(delay), leeway: .milliseconds(5))
    }

    // MARK: - Objects (called inside sd_bus_process, on `queue`)

    private func property(_ name: String, _ reply: BusMessage, _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        guard let value = state.value(of: name) else { return -ENOENT }
        return reply.append(value)
    }

    private func method(_ call: BusMessage, _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        queue.assertOnQueue()
        guard let member = call.member, let method = ProxyMethod(member), let sender = call.sender else {
            return sd_bus_error_set(error, "org.freedesktop.DBus.Error.UnknownMethod", "no such method")
        }
        // The call is kept (by the check) until polkit answers.
        let check = PolkitCheck(call: call, member: member, method: method, sender: sender)
        switch authorizations.admit(check, from: sender) {
        case .ask:
            ask(check)
        case .wait:
            break
        case .refuse:
            log(.warning, about: sender, "\(member) from \(sender) refused for now: \(AuthorizationQueue<PolkitCheck>.waitingPerClient) of its calls already wait for polkit")
            call.replyError("org.freedesktop.DBus.Error.LimitsExceeded",
                            "Too many calls from this client are waiting for authorization; try again when they are answered")
        }
        return 1
    }

    /// Asks polkit about a check (counted as asked); the answer decides it.
    private func ask(_ check: PolkitCheck) {
        queue.assertOnQueue()
        guard let bus else { return }
        let current = generation
        authorize(check.sender, on: bus) { [unowned self] answer in
            guard generation == current else { return }
            decide(check, answer)
            askWaiting()
        }
    }

    /// Asks polkit about the waiting checks that may be asked now.
    private func askWaiting() {
        queue.assertOnQueue()
        while let (check, _) = authorizations.next() { ask(check) }
    }

    /// What polkit's answer (or the bus) means for the call.
    private func decide(_ check: PolkitCheck, _ answer: PolkitAuthority.Answer) {
        queue.assertOnQueue()
        let (call, member, sender) = (check.call, check.member, check.sender)
        if case .busy(let why) = answer {
            askAgain(check, why)
            return
        }
        guard authorizations.answered(sender) else {
            // It left the bus while polkit was asked: nothing to claim for it, nobody to answer.
            log(.debug, about: sender, "\(member) from \(sender) dropped: it left the bus before polkit answered")
            return
        }
        let refusal: String?
        switch answer {
        case .authorized:
            polkitAbsentLogged = false
            refusal = nil
        case .denied(let why):
            polkitAbsentLogged = false
            refusal = why
        case .absent:
            refusal = rootOnly(sender)
        case .subjectGone:
            // polkit could not look the client up: it left, its departure is on its way.
            log(.debug, about: sender, "\(member) from \(sender) dropped: it left the bus before polkit answered")
            return
        case .unanswered(let why):
            log(.warning, about: sender, "\(member) from \(sender) failed: polkit did not answer (\(why))")
            call.replyError("org.freedesktop.DBus.Error.Failed", "polkit did not answer: \(why)")
            return
        case .busy:
            return  // asked again above
        }
        if let refusal {
            log(.info, about: sender, "\(member) from \(sender) refused: \(refusal)")
            call.replyError("org.freedesktop.DBus.Error.AccessDenied", "Not Authorized: \(refusal)")
        } else if check.method.claims {
            claim(check.method.sensor, call, sender)
        } else {
            release(check.method.sensor, call, sender)
        }
    }

    /// The bus did not pass the check on (too many of our calls wait for replies): asked
    /// again in its turn, once fewer are waiting; after ``busyAttempts`` the call gets an
    /// error that says so (not a refusal).
    private func askAgain(_ check: PolkitCheck, _ why: String) {
        queue.assertOnQueue()
        var again = check
        again.busy += 1
        guard again.busy < Self.busyAttempts else {
            _ = authorizations.answered(check.sender)
            log(.warning, about: check.sender, "\(check.member) from \(check.sender) failed: the bus would not pass it on to polkit (\(why))")
            check.call.replyError("org.freedesktop.DBus.Error.LimitsExceeded", "polkit could not be asked (the bus: \(why)); try again")
            return
        }
        guard authorizations.busRefused(again, from: check.sender) else { return }
        if again.busy == 1 {
            log(.info, about: check.sender, "polkit could not be asked about \(check.member) from \(check.sender) (\(why)): asked again, \(authorizations.limit) at a time")
        }
        // Another answer will make room; with none to come, try again shortly.
        if authorizations.asked == 0 {
            let current = generation
            queue.asyncAfter(deadline: .now() + 0.1) { [weak self] in
                guard let self, generation == current else { return }
                askWaiting()
                flush()
            }
        }
    }

    private func claim(_ sensor: ProxySensor, _ call: BusMessage, _ sender: String) {
        queue.assertOnQueue()
        guard state.has(sensor) else {
            // As iio-sensor-proxy: claiming a sensor that is not there succeeds and does
            // nothing (monitor-sensor claims every kind and gives up on an error).
            replyOK(call)
            return
        }
        let first = claims.claim(sensor, by: sender)
        log(.debug, about: sender, "\(sender) claims the \(sensor.rawValue)\(first ? " (first claim: reading it)" : "")")
        if first { backend.startReading(sensor) }
        if reading.contains(sensor) {
            replyOK(call)
            return
        }
        nextPendingID += 1
        let id = nextPendingID
        pending[sensor, default: []].append(PendingClaim(id: id, call: call, sender: sender))
        queue.asyncAfter(deadline: .now() + Self.firstReadingTimeout) { [weak self] in
            guard let self, let index = pending[sensor]?.firstIndex(where: { $0.id == id }) else { return }
            let waiting = pending[sensor]!.remove(at: index)
            log(.warning, about: sender, "no \(sensor.rawValue) reading within \(Self.firstReadingTimeout) s of \(sender)'s claim: answered without one")
            replyOK(waiting.call)
            flush()
        }
    }

    private func release(_ sensor: ProxySensor, _ call: BusMessage, _ sender: String) {
        queue.assertOnQueue()
        if claims.release(sensor, by: sender) { stopReading(sensor) }
        log(.debug, about: sender, "\(sender) releases the \(sensor.rawValue)")
        replyOK(call)
    }

    private func stopReading(_ sensor: ProxySensor) {
        queue.assertOnQueue()
        reading.remove(sensor)
        news.withLock { $0.stopped([sensor]) }
        backend.stopReading(sensor)
    }

    /// A client left the bus: its claims end, its waiting claims are dropped.
    private func nameOwnerChanged(_ message: BusMessage) {
        queue.assertOnQueue()
        guard let name = message.readString(), message.readString() != nil,
              let newOwner = message.readString(), newOwner.isEmpty, name.hasPrefix(":") else { return }
        for sensor in ProxySensor.allCases {
            pending[sensor]?.removeAll { $0.sender == name }
        }
        // Its calls waiting for polkit are dropped; answers still to come find it gone.
        authorizations.departed(name)
        if claims.holdsAny(name) {
            log(.debug, about: name, "\(name) left the bus: its claims are released")
            for sensor in claims.remove(name) { stopReading(sensor) }
        }
        let leftOut = logAllowance.forget(name)
        if leftOut > 0 { logger.notice("\(name) left the bus; \(leftOut) more lines about it were left out of the log") }
    }

    /// The sensor disappeared: waiting claims fail and its claims end, as iio-sensor-proxy's do.
    private func sensorRemoved(_ sensor: ProxySensor) {
        failPending(sensor, "Sensor removed while waiting for it to start up")
        if claims.clear(sensor) { stopReading(sensor) }
    }

    private func answerPending(_ sensor: ProxySensor) {
        queue.assertOnQueue()
        for waiting in pending.removeValue(forKey: sensor) ?? [] {
            replyOK(waiting.call)
        }
    }

    private func failPending(_ sensor: ProxySensor, _ why: String) {
        queue.assertOnQueue()
        for waiting in pending.removeValue(forKey: sensor) ?? [] {
            waiting.call.replyError("org.freedesktop.DBus.Error.Failed", why)
        }
    }

    // MARK: - Log

    /// Logs a line about one client, within what ``LogAllowance`` allows it (a line that would
    /// not be shown at the log level counts nothing).
    private func log(_ level: Logger.Level, about client: String, _ line: @autoclosure () -> String) {
        queue.assertOnQueue()
        guard logger.logLevel <= level else { return }
        switch logAllowance.admit(client, at: Double(DispatchTime.now().uptimeNanoseconds) / 1e9) {
        case .log(let leftOut):
            if leftOut > 0 { logger.notice("\(leftOut) more lines about \(client) were left out of the log") }
            logger.log(level: level, "\(line())")
        case .quieten:
            logger.notice("\(client) makes motiond log too much: its further lines are left out for \(Int(LogAllowance.interval)) s")
        case .leaveOut:
            break
        }
    }

    // MARK: - Replies and signals

    private func replyOK(_ call: BusMessage) {
        guard let reply = call.methodReturn() else { return }
        send(reply)
    }

    private func send(_ message: BusMessage) {
        queue.assertOnQueue()
        if let bus { message.send(on: bus) }
    }

    /// `PropertiesChanged` for `properties` of `sensor`'s object, to `client` (nil: every
    /// client that listens).
    private func emit(_ sensor: ProxySensor, _ properties: [String], to client: String?) {
        queue.assertOnQueue()
        guard let bus else { return }
        var created: OpaquePointer?
        guard sd_bus_message_new_signal(bus, &created, sensor.path, "org.freedesktop.DBus.Properties", "PropertiesChanged") >= 0,
              let created else { return }
        let signal = BusMessage(owning: created)
        signal.appendString(sensor.interface)
        signal.open("a", "{sv}")
        for name in properties {
            guard let value = state.value(of: name) else { continue }
            signal.open("e", "sv")
            signal.appendString(name)
            signal.open("v", BusMessage.signature(value))
            signal.append(value)
            signal.close()
            signal.close()
        }
        signal.close()
        signal.open("a", "s")
        signal.close()
        if let client { signal.setDestination(client) }
        send(signal)
    }

    // MARK: - polkit

    /// Asks polkit whether `sender` may claim sensors; `done` gets the answer.
    private func authorize(_ sender: String, on bus: OpaquePointer, _ done: @escaping (PolkitAuthority.Answer) -> Void) {
        guard let request = PolkitAuthority.request(on: bus, sender: sender, action: SensorProxyObjects.claimAction) else {
            done(.denied("the polkit request could not be built"))
            return
        }
        let box = Unmanaged.passRetained(PolkitCallback { reply in done(PolkitAuthority.answer(reply)) })
        // sd-bus keeps its own reference to the request until the call is answered.
        let result = withExtendedLifetime(request) {
            sd_bus_call_async(bus, nil, request.pointer, { reply, context, _ in
                guard let context else { return 0 }
                let callback = Unmanaged<PolkitCallback>.fromOpaque(context).takeRetainedValue()
                if let reply { callback.run(BusMessage(retaining: reply)) }
                return 0
            }, box.toOpaque(), 25_000_000)
        }
        if result < 0 {
            box.release()
            done(.unanswered("polkit could not be asked: \(SystemError(result))"))
        }
    }

    /// Without polkit: root may claim, nobody else (said once until polkit answers again).
    private func rootOnly(_ sender: String) -> String? {
        if !polkitAbsentLogged {
            polkitAbsentLogged = true
            logger.warning("polkit is not on the system bus: only root may claim sensors on \(SensorProxyObjects.busName)")
        }
        guard let bus else { return "the bus connection was lost" }
        var creds: OpaquePointer?
        var uid: uid_t = .max
        if sd_bus_get_name_creds(bus, sender, UInt64(SD_BUS_CREDS_EUID), &creds) >= 0, let creds {
            sd_bus_creds_get_euid(creds, &uid)
            sd_bus_creds_unref(creds)
        }
        return uid == 0 ? nil : "polkit is not running, and without it only root may claim sensors"
    }

    /// The continuation of a polkit call (sd-bus hands back an opaque pointer).
    private final class PolkitCallback {
        let run: (BusMessage) -> Void
        init(_ run: @escaping (BusMessage) -> Void) { self.run = run }
    }
}
