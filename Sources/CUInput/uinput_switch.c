// The ioctls and event structures of <linux/uinput.h> (variadic ioctl and kernel structures are
// not callable from Swift as they are): a switch-only input device for the tablet mode.
#include "uinput_switch.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/uinput.h>

static int emit(int fd, unsigned short type, unsigned short code, int value) {
    struct input_event event;
    memset(&event, 0, sizeof event);
    event.type = type;
    event.code = code;
    event.value = value;
    ssize_t written = write(fd, &event, sizeof event);
    if (written < 0) return -errno;
    return written == (ssize_t)sizeof event ? 0 : -EIO;
}

int motiond_uinput_create_tablet_switch(int fd, const char *name, int on) {
    if (ioctl(fd, UI_SET_EVBIT, EV_SW) < 0) return -errno;
    if (ioctl(fd, UI_SET_SWBIT, SW_TABLET_MODE) < 0) return -errno;
    struct uinput_setup setup;
    memset(&setup, 0, sizeof setup);
    setup.id.bustype = BUS_VIRTUAL;
    // No vendor of its own: 0; the product says what it is ("TM").
    setup.id.product = 0x544d;
    setup.id.version = 1;
    strncpy(setup.name, name, UINPUT_MAX_NAME_SIZE - 1);
    if (ioctl(fd, UI_DEV_SETUP, &setup) < 0) return -errno;
    if (ioctl(fd, UI_DEV_CREATE) < 0) return -errno;
    // The state from the start: the kernel keeps the last one, which readers query on open.
    return on ? motiond_uinput_report_tablet_mode(fd, 1) : 0;
}

int motiond_uinput_report_tablet_mode(int fd, int on) {
    int result = emit(fd, EV_SW, SW_TABLET_MODE, on ? 1 : 0);
    if (result < 0) return result;
    return emit(fd, EV_SYN, SYN_REPORT, 0);
}

void motiond_uinput_destroy(int fd) {
    ioctl(fd, UI_DEV_DESTROY);
}
