extension MotionEngine.PersistentState {
    /// Largest hard-iron offset, retained raw reading or binning centre believed, µT: beyond the
    /// range of any magnetometer in a consumer device (the widest, AK09911-class parts, measure
    /// ±4900 µT).
    public static let maximumMagneticField = 10_000.0

    /// Why this saved state cannot be something the engine learned, naming the field
    /// (`gyroscopeBias`, `magnetometerCalibration.calibration.softIron`, …); nil when it is
    /// plausible. A restored state must be what the engine itself could have saved under
    /// `configuration`: a gyroscope bias within ``AttitudeEstimatorParameters/biasClip``, a
    /// magnetometer calibration the calibrator would accept (finite, a unit-determinant
    /// symmetric soft iron within ``MagnetometerCalibrator/Parameters/maximumAxisRatio``, a field
    /// strength within ``MagnetometerCalibrator/Parameters/plausibleFieldStrength``, finite
    /// retained readings within ``maximumMagneticField``; a sample set of another bin layout is
    /// the calibrator's to restart), an axis correction that is a signed axis permutation and
    /// sensor lags within ``MotionEngine/SensorLags/believable``.
    public func implausibility(for configuration: MotionEngine.Configuration = .init()) -> String? {
        let clip = configuration.estimator.biasClip * .pi / 180
        guard gyroscopeBias.isFinite, gyroscopeBias.norm <= clip * (1 + 1e-9) else {
            return "gyroscopeBias: \(gyroscopeBias) rad/s is not a bias the estimator learns (at most \(DecimalText.shortest(clip)) rad/s, \(DecimalText.shortest(configuration.estimator.biasClip)) °/s)"
        }
        if let problem = Self.implausibility(of: magnetometerCalibration, parameters: configuration.calibrator) {
            return "magnetometerCalibration.\(problem)"
        }
        if let correction = gyroscopeCorrection, !Self.isSignedPermutation(correction) {
            return "gyroscopeCorrection: \(correction.text) is not a signed axis permutation"
        }
        if let lags = sensorLags {
            let believable = MotionEngine.SensorLags.believable
            for (name, lag) in [("accelerometer", lags.accelerometer), ("magnetometer", lags.magnetometer)] where !believable.contains(lag) {
                return "sensorLags.\(name): \(DecimalText.shortest(lag)) s is not a lag the engine learns "
                    + "(\(DecimalText.shortest(believable.lowerBound))–\(DecimalText.shortest(believable.upperBound)) s)"
            }
        }
        return nil
    }

    private static func implausibility(of state: MagnetometerCalibrator.State, parameters: MagnetometerCalibrator.Parameters) -> String? {
        let calibration = state.calibration
        if calibration == .identity {
            // Only an accepted fit gives an accuracy: without one the field is uncalibrated.
            guard state.accuracy == .uncalibrated, state.fitAccuracy == .uncalibrated else {
                return "accuracy: \(max(state.accuracy, state.fitAccuracy)) without a calibration"
            }
        } else {
            guard calibration.offset.isFinite, calibration.offset.norm <= maximumMagneticField else {
                return "calibration.offset: \(calibration.offset) µT is beyond \(DecimalText.shortest(maximumMagneticField)) µT"
            }
            guard parameters.plausibleFieldStrength.contains(calibration.fieldStrength) else {
                return "calibration.fieldStrength: \(DecimalText.shortest(calibration.fieldStrength)) µT is outside "
                    + "\(DecimalText.shortest(parameters.plausibleFieldStrength.lowerBound))–\(DecimalText.shortest(parameters.plausibleFieldStrength.upperBound)) µT"
            }
            let w = calibration.softIron
            let symmetric = abs(w[0, 1] - w[1, 0]) <= 1e-9 && abs(w[0, 2] - w[2, 0]) <= 1e-9 && abs(w[1, 2] - w[2, 1]) <= 1e-9
            guard w.rowMajor.allSatisfy(\.isFinite), symmetric, abs(w.determinant - 1) <= 1e-6 else {
                return "calibration.softIron: \(w.text) is not a symmetric matrix of determinant 1"
            }
            let eigen = SymmetricEigen(w)
            guard eigen.smallest > 0, eigen.largest / eigen.smallest <= parameters.maximumAxisRatio * (1 + 1e-9) else {
                return "calibration.softIron: \(w.text) has an axis ratio beyond \(DecimalText.shortest(parameters.maximumAxisRatio))"
            }
        }
        guard state.residual.isFinite, (0...1).contains(state.residual) else {
            return "residual: \(DecimalText.shortest(state.residual)) is not a fraction from 0 to 1"
        }
        for (bin, sample) in state.samples.enumerated() {
            guard let sample else { continue }
            guard sample.field.isFinite, sample.field.norm <= maximumMagneticField, sample.time.isFinite else {
                return "samples[\(bin)]: \(sample.field) µT at \(sample.time) s is not a reading"
            }
        }
        for sample in state.recentOff ?? [] {
            guard sample.field.isFinite, sample.field.norm <= maximumMagneticField, sample.time.isFinite else {
                return "recentOff: \(sample.field) µT at \(sample.time) s is not a reading"
            }
        }
        guard (state.recentOff?.count ?? 0) <= MagnetometerCalibrator.recentOffLimit else {
            return "recentOff: \(state.recentOff?.count ?? 0) samples, more than \(MagnetometerCalibrator.recentOffLimit)"
        }
        guard state.binCentre.isFinite, state.binCentre.norm <= maximumMagneticField else {
            return "binCentre: \(state.binCentre) µT is beyond \(DecimalText.shortest(maximumMagneticField)) µT"
        }
        guard (0...parameters.refitInterval).contains(state.samplesSinceFit) else {
            return "samplesSinceFit: \(state.samplesSinceFit) is not from 0 to \(parameters.refitInterval)"
        }
        guard state.deviation.isFinite, (0...1).contains(state.deviation) else {
            return "deviation: \(DecimalText.shortest(state.deviation)) is not a fraction from 0 to 1"
        }
        if let time = state.lastTime, !time.isFinite {
            return "lastTime: \(time) is not a time"
        }
        return nil
    }

    /// Entries 0 or ±1, exactly one non-zero in each row and each column.
    private static func isSignedPermutation(_ m: Matrix3) -> Bool {
        let entries = m.rowMajor
        guard entries.allSatisfy({ $0 == 0 || abs($0) == 1 }) else { return false }
        return (0..<3).allSatisfy { i in
            (0..<3).count { m[i, $0] != 0 } == 1 && (0..<3).count { m[$0, i] != 0 } == 1
        }
    }
}
