#ifndef MOTIOND_UINPUT_SWITCH_H
#define MOTIOND_UINPUT_SWITCH_H

/// Makes the uinput file descriptor `fd` (/dev/uinput, opened for writing) a virtual input
/// device named `name` with one switch, SW_TABLET_MODE, set to `on` from the start. 0, or a
/// negative errno.
int motiond_uinput_create_tablet_switch(int fd, const char *name, int on);

/// Reports SW_TABLET_MODE as `on` (1) or off (0), with its SYN_REPORT. 0, or a negative errno.
int motiond_uinput_report_tablet_mode(int fd, int on);

/// Removes the device (closing `fd` does too).
void motiond_uinput_destroy(int fd);

#endif
