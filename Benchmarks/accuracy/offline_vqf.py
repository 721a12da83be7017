#!/usr/bin/env python3
"""VQF's attitudes on BROAD trace files, for `motiond-bench accuracy-offline` to score.

Usage: offline_vqf.py DATASET OUTPUT FILE...

For each FILE (a path under DATASET, a trace CSV with t, gyr_*, acc_*, mag_* columns in SI
units) writes OUTPUT/<FILE with '/' as '__'>.csv: one row per input row,
t, then four quaternions w,x,y,z (sensor -> East-North-Up): offline VQF 9D and 6D
(`vqf.offlineVQF`), online VQF 9D and 6D (`vqf.VQF(Ts).updateBatch`), all with VQF's default
parameters and Ts = the median sample interval, as the dataset README's VQF results.

Exit status 3, with the reason on standard error, when numpy or vqf 2.1.2 cannot be imported.

BROAD dataset: D. Laidig, M. Caruso, A. Cereatti, T. Seel, "BROAD - A Benchmark for Robust
Inertial Orientation Estimation", Data 6(7):72, 2021, doi:10.3390/data6070072, CC BY 4.0 (the
files read are a modified CSV subset; see its README).
"""
import os
import sys

REQUIRED_VQF = "2.1.2"


def main(argv):
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 64
    try:
        import numpy as np
        import vqf
        from importlib.metadata import version
        found = version("vqf")
    except ImportError as error:
        sys.stderr.write(f"cannot import numpy and vqf ({error})\n")
        return 3
    if found != REQUIRED_VQF:
        sys.stderr.write(f"vqf {found} found, {REQUIRED_VQF} needed\n")
        return 3
    dataset, output, files = argv[1], argv[2], argv[3:]
    os.makedirs(output, exist_ok=True)
    for name in files:
        data = np.genfromtxt(os.path.join(dataset, name), delimiter=",", names=True)

        def columns(prefix):
            return np.ascontiguousarray(np.stack([data[f"{prefix}_{axis}"] for axis in "xyz"], axis=1), dtype=np.float64)

        gyr, acc, mag = columns("gyr"), columns("acc"), columns("mag")
        ts = float(np.median(np.diff(data["t"])))
        offline = vqf.offlineVQF(gyr, acc, mag, ts)
        online = vqf.VQF(ts).updateBatch(gyr, acc, mag)
        table = np.column_stack([data["t"], offline["quat9D"], offline["quat6D"], online["quat9D"], online["quat6D"]])
        np.savetxt(os.path.join(output, name.replace("/", "__")), table, delimiter=",", fmt="%.9g",
                   header="t,off9_w,off9_x,off9_y,off9_z,off6_w,off6_x,off6_y,off6_z,"
                          "on9_w,on9_x,on9_y,on9_z,on6_w,on6_x,on6_y,on6_z", comments="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
