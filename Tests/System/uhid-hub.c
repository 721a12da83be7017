/*
 * uhid-hub: plays a HID sensor hub through /dev/uhid so that the kernel's hid-sensor-hub,
 * hid-sensor-accel-3d, hid-sensor-gyro-3d, hid-sensor-magn-3d and hid-sensor-als drivers create
 * real IIO devices (accel_3d, gyro_3d, magn_3d, als). Written for motiond's system test tier
 * (make check-system).
 *
 * One hub, four physical collections of the Sensors usage page (0x20), each with its report ID:
 *   1 Accelerometer 3D (0x73): acceleration X/Y/Z 0x0453-0x0455, s16, unit exponent -2 (0.01 g)
 *   2 Gyrometer 3D     (0x76): angular velocity X/Y/Z 0x0457-0x0459, s16, exponent -2 (0.01 deg/s)
 *   3 Compass 3D       (0x83): magnetic flux X/Y/Z 0x0485-0x0487, s16, exponent -1 (0.1 mGauss)
 *   4 Ambient light    (0x41): illuminance 0x04D1, u32, exponent -1 (0.1 lux; no unit item,
 *                              which hid-sensor-als reads as lux: in_illuminance_scale 0.1)
 * and, as a convertible, a fifth: 5 Accelerometer 3D, the one in the base (a second accel_3d).
 * Each collection's feature report: reporting state 0x0316 and power state 0x0319 (named arrays,
 * logical 1-based), report interval 0x030E (u32, ms), change sensitivity 0x030F (u16).
 * The hub answers GET_REPORT (feature and input) and SET_REPORT (feature), and sends input
 * reports at the interval the kernel set while the sensor is powered (D0) and reporting.
 *
 * With `stamp`, each input report also carries the hub's own timestamp (usage 0x0529, 64 bits in
 * milliseconds, unit 0x19): the kernel then stamps the IIO scans with it instead of its clock.
 *
 * Commands, one a line, from stdin (or the file named as the only argument):
 *   accel X Y Z   acceleration in m/s^2 (device axes; flat screen up is 0 0 -9.81, upright 0 -9.81 0)
 *   gyro X Y Z    angular velocity in rad/s
 *   magn X Y Z    magnetic field in microtesla              sleep SECONDS
 *   light LUX     illuminance in lux (100 at the start)
 *   base X Y Z    the base accelerometer, as accel          convertible on|off  from the next
 *                 replug, the hub has the base accelerometer (off: four sensors, the default)
 *   unplug        UHID_DESTROY (the IIO devices go away)    replug       create the hub again
 *   stamp PPM     from the next replug, stamp reports on a hub clock that starts at 0 and runs
 *                 PPM parts per million fast;              stamp off    no timestamps (default)
 *   quit          destroy and exit (end of input: keep playing the last values)
 * Each command is echoed to stderr with a "uhid-hub:" prefix.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/uhid.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXSENSORS 5
/* Sensors of the hub as created: 4, or 5 as a convertible. */
static int nsensors = 4;
static int convertible;

/* Little helpers to write the report descriptor. */
static uint8_t desc[1024];
/* Timestamps in the input reports (from the next creation), and the hub clock's rate error. */
static int stamping, stamped;
static double stamp_ppm;
static struct timespec hub_epoch;
static size_t dlen;
#define EMIT(...) do { const uint8_t v_[] = { __VA_ARGS__ }; memcpy(desc + dlen, v_, sizeof v_); dlen += sizeof v_; } while (0)
#define USAGE16(u) EMIT(0x0A, (u) & 0xff, (u) >> 8)

struct sensor {
    uint8_t report_id;
    uint16_t usage;          /* collection usage on page 0x20 */
    uint8_t nfields;         /* data fields: 3 axes, or 1 (illuminance) */
    uint8_t wide;            /* 0: s16 fields, 1: u32 fields */
    uint16_t axis_usage[3];  /* data field usages */
    int8_t exponent;         /* unit exponent of the data fields */
    double per_unit;         /* SI value of one raw step (command units) */
    /* feature state, as the kernel set it */
    uint8_t reporting;       /* 1-based index into 0x0840.. (2 = all events) */
    uint8_t power;           /* 1-based index into 0x0850.. (2 = D0 full power) */
    uint32_t interval_ms;
    uint16_t sensitivity;
    int32_t raw[3];
    struct timespec next;
    unsigned long sent;
};

static struct sensor sensors[MAXSENSORS] = {
    /* 0.01 g = 0.0980665 m/s^2 */
    { 1, 0x73, 3, 0, { 0x0453, 0x0454, 0x0455 }, -2, 0.0980665, 1, 1, 100, 0, { 0, 0, 0 }, { 0, 0 }, 0 },
    /* 0.01 deg/s in rad/s */
    { 2, 0x76, 3, 0, { 0x0457, 0x0458, 0x0459 }, -2, 0.01 * M_PI / 180.0, 1, 1, 100, 0, { 0, 0, 0 }, { 0, 0 }, 0 },
    /* 0.1 mGauss = 0.01 microtesla */
    { 3, 0x83, 3, 0, { 0x0485, 0x0486, 0x0487 }, -1, 0.01, 1, 1, 100, 0, { 0, 0, 0 }, { 0, 0 }, 0 },
    /* 0.1 lux */
    { 4, 0x41, 1, 1, { 0x04D1 }, -1, 0.1, 1, 1, 100, 0, { 0, 0, 0 }, { 0, 0 }, 0 },
    /* the base accelerometer of a convertible */
    { 5, 0x73, 3, 0, { 0x0453, 0x0454, 0x0455 }, -2, 0.0980665, 1, 1, 100, 0, { 0, 0, 0 }, { 0, 0 }, 0 },
};

static void build_descriptor(void)
{
    dlen = 0;
    for (int i = 0; i < nsensors; i++) {
        struct sensor *s = &sensors[i];
        EMIT(0x05, 0x20);                  /* Usage Page (Sensors) */
        EMIT(0x09, s->usage);              /* Usage (the sensor type) */
        EMIT(0xA1, 0x00);                  /* Collection (Physical) */
        EMIT(0x85, s->report_id);          /*   Report ID */
        /* Feature: reporting state, a named array 0x0840..0x0845, values 1..6 */
        USAGE16(0x0316);
        EMIT(0x15, 0x01, 0x25, 0x06, 0x75, 0x08, 0x95, 0x01);
        EMIT(0xA1, 0x02);                  /*   Collection (Logical) */
        for (int u = 0x0840; u <= 0x0845; u++) USAGE16(u);
        EMIT(0xB1, 0x00);                  /*     Feature (Data, Array, Abs) */
        EMIT(0xC0);
        /* Feature: power state, a named array 0x0850..0x0855, values 1..6 */
        USAGE16(0x0319);
        EMIT(0x15, 0x01, 0x25, 0x06, 0x75, 0x08, 0x95, 0x01);
        EMIT(0xA1, 0x02);
        for (int u = 0x0850; u <= 0x0855; u++) USAGE16(u);
        EMIT(0xB1, 0x00);
        EMIT(0xC0);
        /* Feature: report interval, u32 milliseconds */
        USAGE16(0x030E);
        EMIT(0x15, 0x00, 0x27, 0xFF, 0xFF, 0xFF, 0x7F, 0x75, 0x20, 0x95, 0x01, 0x55, 0x00);
        EMIT(0xB1, 0x02);                  /*   Feature (Data, Var, Abs) */
        /* Feature: change sensitivity (absolute), u16 */
        USAGE16(0x030F);
        EMIT(0x15, 0x00, 0x26, 0xFF, 0x7F, 0x75, 0x10, 0x95, 0x01, 0x55, s->exponent & 0x0F);
        EMIT(0xB1, 0x02);
        /* Input: the data fields, each its own: s16 axes, or a u32 illuminance */
        for (int a = 0; a < s->nfields; a++) {
            USAGE16(s->axis_usage[a]);
            if (s->wide) EMIT(0x15, 0x00, 0x27, 0xFF, 0xFF, 0xFF, 0x7F, 0x75, 0x20);
            else EMIT(0x16, 0x01, 0x80, 0x26, 0xFF, 0x7F, 0x75, 0x10);
            EMIT(0x95, 0x01, 0x55, s->exponent & 0x0F);
            EMIT(0x81, 0x02);              /*   Input (Data, Var, Abs) */
        }
        if (stamping) {
            /* Input: timestamp 0x0529, two u32 = one little-endian 64-bit value (the drivers read
             * 8 bytes), unit 0x19 (milliseconds for hid-sensor), exponent 0; the unit is reset
             * after it, as it is a global item. */
            USAGE16(0x0529);
            EMIT(0x15, 0x00, 0x27, 0xFF, 0xFF, 0xFF, 0x7F, 0x75, 0x20, 0x95, 0x02, 0x65, 0x19, 0x55, 0x00);
            EMIT(0x81, 0x02);
            EMIT(0x65, 0x00);
        }
        EMIT(0xC0);                        /* End Collection */
    }
}

static int ufd = -1;
static int created;

static void die(const char *what) { fprintf(stderr, "uhid-hub: %s: %s\n", what, strerror(errno)); exit(1); }

static void send_event(struct uhid_event *ev)
{
    if (write(ufd, ev, sizeof *ev) != (ssize_t)sizeof *ev) die("write /dev/uhid");
}

static void create_hub(void)
{
    struct uhid_event ev;
    memset(&ev, 0, sizeof ev);
    stamped = stamping;
    nsensors = convertible ? 5 : 4;
    build_descriptor();
    clock_gettime(CLOCK_MONOTONIC, &hub_epoch);
    ev.type = UHID_CREATE2;
    snprintf((char *)ev.u.create2.name, sizeof ev.u.create2.name, "motiond test sensor hub");
    snprintf((char *)ev.u.create2.phys, sizeof ev.u.create2.phys, "uhid-hub");
    ev.u.create2.rd_size = dlen;
    ev.u.create2.bus = 0x03; /* BUS_USB */
    ev.u.create2.vendor = 0x1d6b;
    ev.u.create2.product = 0x5a5a;
    memcpy(ev.u.create2.rd_data, desc, dlen);
    send_event(&ev);
    created = 1;
    for (int i = 0; i < nsensors; i++) { sensors[i].reporting = 1; sensors[i].power = 1; }
    fprintf(stderr, "uhid-hub: created (%zu-byte report descriptor%s)\n", dlen, stamped ? ", hub timestamps" : "");
}

static void destroy_hub(void)
{
    struct uhid_event ev;
    if (!created) return;
    memset(&ev, 0, sizeof ev);
    ev.type = UHID_DESTROY;
    send_event(&ev);
    created = 0;
    fprintf(stderr, "uhid-hub: destroyed\n");
}

static struct sensor *by_id(unsigned id)
{
    for (int i = 0; i < nsensors; i++) if (sensors[i].report_id == id) return &sensors[i];
    return NULL;
}

static size_t feature_report(struct sensor *s, uint8_t *out)
{
    out[0] = s->report_id;
    out[1] = s->reporting;
    out[2] = s->power;
    out[3] = s->interval_ms; out[4] = s->interval_ms >> 8; out[5] = s->interval_ms >> 16; out[6] = s->interval_ms >> 24;
    out[7] = s->sensitivity; out[8] = s->sensitivity >> 8;
    return 9;
}

static size_t input_report(struct sensor *s, uint8_t *out)
{
    size_t n = 1, width = s->wide ? 4 : 2;
    out[0] = s->report_id;
    for (int a = 0; a < s->nfields; a++)
        for (size_t b = 0; b < width; b++) out[n++] = (uint32_t)s->raw[a] >> (8 * b);
    if (!stamped) return n;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double elapsed_ms = ((t.tv_sec - hub_epoch.tv_sec) * 1e9 + (t.tv_nsec - hub_epoch.tv_nsec)) / 1e6;
    uint64_t hub_ms = (uint64_t)(elapsed_ms * (1 + stamp_ppm * 1e-6));
    for (int b = 0; b < 8; b++) out[n + b] = hub_ms >> (8 * b);
    return n + 8;
}

static int active(const struct sensor *s) { return created && s->power == 2 && s->reporting == 2 && s->interval_ms > 0; }

static void now(struct timespec *t) { clock_gettime(CLOCK_MONOTONIC, t); }
static long long ms_until(const struct timespec *t)
{
    struct timespec n; now(&n);
    return (t->tv_sec - n.tv_sec) * 1000LL + (t->tv_nsec - n.tv_nsec) / 1000000;
}
static void add_ms(struct timespec *t, long ms)
{
    t->tv_sec += ms / 1000; t->tv_nsec += (ms % 1000) * 1000000L;
    if (t->tv_nsec >= 1000000000L) { t->tv_sec++; t->tv_nsec -= 1000000000L; }
}

static void handle_uhid(void)
{
    struct uhid_event ev, rep;
    ssize_t n = read(ufd, &ev, sizeof ev);
    if (n < 0) { if (errno == EINTR || errno == EAGAIN) return; die("read /dev/uhid"); }
    memset(&rep, 0, sizeof rep);
    switch (ev.type) {
    case UHID_GET_REPORT: {
        struct sensor *s = by_id(ev.u.get_report.rnum);
        rep.type = UHID_GET_REPORT_REPLY;
        rep.u.get_report_reply.id = ev.u.get_report.id;
        if (!s) { rep.u.get_report_reply.err = EIO; }
        else if (ev.u.get_report.rtype == UHID_FEATURE_REPORT)
            rep.u.get_report_reply.size = feature_report(s, rep.u.get_report_reply.data);
        else if (ev.u.get_report.rtype == UHID_INPUT_REPORT)
            rep.u.get_report_reply.size = input_report(s, rep.u.get_report_reply.data);
        else rep.u.get_report_reply.err = EIO;
        send_event(&rep);
        break;
    }
    case UHID_SET_REPORT: {
        struct sensor *s = by_id(ev.u.set_report.rnum);
        const uint8_t *d = ev.u.set_report.data;
        size_t sz = ev.u.set_report.size;
        rep.type = UHID_SET_REPORT_REPLY;
        rep.u.set_report_reply.id = ev.u.set_report.id;
        if (!s || ev.u.set_report.rtype != UHID_FEATURE_REPORT) { rep.u.set_report_reply.err = EIO; send_event(&rep); break; }
        if (sz > 0 && d[0] == s->report_id) { d++; sz--; }
        if (sz >= 8) {
            int was = active(s);
            s->reporting = d[0];
            s->power = d[1];
            s->interval_ms = d[2] | d[3] << 8 | d[4] << 16 | (uint32_t)d[5] << 24;
            s->sensitivity = d[6] | d[7] << 8;
            if (!was && active(s)) now(&s->next);
            fprintf(stderr, "uhid-hub: report %u: reporting %u power %u interval %u ms sensitivity %u\n",
                    s->report_id, s->reporting, s->power, s->interval_ms, s->sensitivity);
        } else rep.u.set_report_reply.err = EINVAL;
        send_event(&rep);
        break;
    }
    case UHID_START: fprintf(stderr, "uhid-hub: started\n"); break;
    case UHID_STOP: fprintf(stderr, "uhid-hub: stopped\n"); break;
    default: break;
    }
}

/* Sets the data fields from values in command units, clamped to the fields' logical range. */
static void set_values(struct sensor *s, double x, double y, double z)
{
    double v[3] = { x, y, z }, lo = s->wide ? 0 : -32767, hi = s->wide ? 2147483647.0 : 32767;
    for (int a = 0; a < s->nfields; a++) {
        double r = round(v[a] / s->per_unit);
        s->raw[a] = r > hi ? (int32_t)hi : r < lo ? (int32_t)lo : (int32_t)r;
    }
}

/* Returns 0 to go on, 1 to quit. */
static int command(char *line, struct timespec *sleep_until)
{
    char word[16];
    double x, y, z;
    line[strcspn(line, "\r\n")] = 0;
    if (sscanf(line, "%15s", word) != 1 || word[0] == '#') return 0;
    fprintf(stderr, "uhid-hub: %s\n", line);
    if (sscanf(line, "accel %lf %lf %lf", &x, &y, &z) == 3) set_values(&sensors[0], x, y, z);
    else if (sscanf(line, "gyro %lf %lf %lf", &x, &y, &z) == 3) set_values(&sensors[1], x, y, z);
    else if (sscanf(line, "magn %lf %lf %lf", &x, &y, &z) == 3) set_values(&sensors[2], x, y, z);
    else if (sscanf(line, "light %lf", &x) == 1) set_values(&sensors[3], x, 0, 0);
    else if (sscanf(line, "base %lf %lf %lf", &x, &y, &z) == 3) set_values(&sensors[4], x, y, z);
    else if (!strcmp(line, "convertible on")) convertible = 1;
    else if (!strcmp(line, "convertible off")) convertible = 0;
    else if (sscanf(line, "sleep %lf", &x) == 1) { now(sleep_until); add_ms(sleep_until, (long)(x * 1000)); }
    else if (!strcmp(word, "unplug")) destroy_hub();
    else if (!strcmp(word, "replug")) { if (!created) create_hub(); }
    else if (sscanf(line, "stamp %lf", &x) == 1) { stamping = 1; stamp_ppm = x; }
    else if (!strcmp(line, "stamp off")) stamping = 0;
    else if (!strcmp(word, "quit")) return 1;
    else fprintf(stderr, "uhid-hub: unknown command: %s\n", line);
    return 0;
}

static char ibuf[4096];
static size_t ilen;

/* Runs the complete lines buffered so far, stopping at a sleep. Returns 1 on quit. */
static int run_lines(struct timespec *sleep_until)
{
    char *nl;
    while (!(sleep_until->tv_sec && ms_until(sleep_until) > 0) && (nl = memchr(ibuf, '\n', ilen))) {
        char line[256];
        size_t n = nl - ibuf + 1, c = n < sizeof line ? n : sizeof line - 1;
        memcpy(line, ibuf, c); line[c] = 0;
        memmove(ibuf, ibuf + n, ilen - n); ilen -= n;
        if (command(line, sleep_until)) return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int in = 0, in_open = 1;
    struct timespec sleep_until = { 0, 0 };
    if (argc > 1 && (in = open(argv[1], O_RDONLY | O_CLOEXEC)) < 0) die(argv[1]);
    setvbuf(stderr, NULL, _IOLBF, 0);
    ufd = open("/dev/uhid", O_RDWR | O_CLOEXEC);
    if (ufd < 0) die("open /dev/uhid");
    /* Lying flat, screen up, in 100 lux (an office). HID sensors (and so the IIO devices they
     * make) follow the Windows and Core Motion convention: gravity reads -1 g along z face up,
     * -1 g along y upright. */
    set_values(&sensors[0], 0, 0, -9.80665);
    set_values(&sensors[2], 20, 0, -40);
    set_values(&sensors[3], 100, 0, 0);
    create_hub();
    for (;;) {
        if (run_lines(&sleep_until)) { destroy_hub(); return 0; }
        int sleeping = sleep_until.tv_sec && ms_until(&sleep_until) > 0;
        struct pollfd p[2] = { { ufd, POLLIN, 0 }, { in, POLLIN, 0 } };
        long long timeout = 1000;
        for (int i = 0; i < nsensors; i++)
            if (active(&sensors[i])) { long long t = ms_until(&sensors[i].next); if (t < timeout) timeout = t < 0 ? 0 : t; }
        if (sleeping && ms_until(&sleep_until) < timeout) timeout = ms_until(&sleep_until);
        if (timeout < 0) timeout = 0;
        int np = (in_open && !sleeping && ilen < sizeof ibuf) ? 2 : 1;
        if (poll(p, np, (int)timeout) < 0 && errno != EINTR) die("poll");
        if (p[0].revents & POLLIN) handle_uhid();
        if (np == 2 && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = read(in, ibuf + ilen, sizeof ibuf - ilen);
            if (n <= 0) { in_open = 0; fprintf(stderr, "uhid-hub: end of commands, keeping the last pose\n"); }
            else ilen += n;
        }
        for (int i = 0; i < nsensors; i++) {
            struct sensor *s = &sensors[i];
            if (!active(s) || ms_until(&s->next) > 0) continue;
            struct uhid_event ev;
            memset(&ev, 0, sizeof ev);
            ev.type = UHID_INPUT2;
            ev.u.input2.size = input_report(s, ev.u.input2.data);
            send_event(&ev);
            s->sent++;
            add_ms(&s->next, s->interval_ms);
            if (ms_until(&s->next) < -1000) now(&s->next); /* fell far behind: do not burst */
        }
    }
}
