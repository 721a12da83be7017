import Glibc
import MotionSync
import Testing

@Suite("SystemError")
struct SystemErrorTests {
    @Test("described as the system describes its number, after the operation when there is one")
    func description() {
        #expect(SystemError(ENOENT).description == "No such file or directory")
        #expect(SystemError(EACCES, "open /etc/motiond.toml").description == "open /etc/motiond.toml: Permission denied")
        #expect(SystemError(EAGAIN).reason == "Resource temporarily unavailable")
    }

    @Test("a negated number (sd-bus, ioctl wrappers) is the same error")
    func negated() {
        #expect(SystemError(-EPIPE) == SystemError(EPIPE))
        #expect(SystemError(-EPIPE).code == EPIPE)
    }

    @Test("last() takes errno of the failed call")
    func last() {
        let result = close(-1)
        let error = SystemError.last("close")
        #expect(result == -1)
        #expect(error == SystemError(EBADF, "close"))
    }
}
