import ArgumentParser
import FoundationEssentials
import MotionCommandLine
import MotionCore
import MotionToolSupport

/// `motionctl plot FILE --output OUT.svg|OUT.png`: a trace (or a `motionctl record` recording)
/// drawn over time as stacked panels: the raw sensors, with `--fuse` the attitude and heading
/// the daemon's engine computes from them, and the events its detectors find.
struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Plot a trace over time as SVG or PNG: sensors, events and, with --fuse, attitude and heading.",
        discussion: """
        Panels, top to bottom, over the trace's time (seconds since its first row): with --fuse \
        the attitude (Core Motion's roll, pitch and yaw in degrees, in xMagneticNorthZVertical \
        when the trace has a magnetometer, else xArbitraryZVertical) and the compass heading \
        (degrees from magnetic north; needs a magnetometer); then acceleration (G, gravity-vector \
        sign: face up at rest reads z = -1), rotation rate (rad/s), magnetic field (µT, raw), as \
        the trace has them; and the events motionctl analyze prints (orientation changes, \
        shakes, gestures). An output ending in .png is converted from the SVG by rsvg-convert \
        (Debian package librsvg2-bin). Exit status: 0 written; 1 the image could not be written \
        (or converted); 64 usage, or a trace that cannot be read (the message names the line).
        """)

    @Argument(help: "Trace CSV (t,gyr_*,acc_*[,mag_*]), e.g. from motionctl record.")
    var file: String

    @Option(help: "The image to write: .svg, or .png (needs rsvg-convert).")
    var output: String

    @Flag(help: "Also plot the attitude and heading of the daemon's motion engine run over the trace.")
    var fuse = false

    @OptionGroup var engine: EngineOptions

    private var isPNG: Bool { output.lowercased().hasSuffix(".png") }

    func validate() throws {
        guard isPNG || output.lowercased().hasSuffix(".svg") else {
            throw ValidationError("--output \(output): expected a name ending in .svg or .png")
        }
    }

    func run() throws {
        let trace = try loadTrace(file)
        guard trace.records.count >= 2 else { throw ValidationError("\(file): fewer than two rows, nothing to plot over time") }
        guard let first = trace.records.first?.time, let last = trace.records.last?.time, (last - first).isFinite else {
            throw ValidationError("\(file): the rows span more seconds than a number holds, nothing to plot over time")
        }
        let data = TracePlotData(trace: trace, engine: try engine.configuration())
        let svg = Self.render(data, title: "\(URL(fileURLWithPath: file).lastPathComponent): \(trace.records.count) rows", fuse: fuse)
        do {
            if isPNG {
                try SVGRasterizer.writePNG(svg, to: output)
            } else {
                try svg.write(toFile: output, atomically: true, encoding: .utf8)
            }
        } catch let error as SVGRasterizer.Failure {
            Console.error("\(error)")
            throw ExitCode.failure
        } catch {
            Console.error("cannot write \(output): \(fileErrorReason(error))")
            throw ExitCode.failure
        }
    }

    /// The SVG document: a title, the panels stacked, the time axis label at the bottom.
    static func render(_ data: TracePlotData, title: String, fuse: Bool) -> String {
        let panels = Self.panels(data, fuse: fuse)
        let left = 80.0, width = 1100.0, top = 60.0, spacing = PlotPanel.height + 50
        var svg = SVGDocument(width: width, height: top + Double(panels.count) * spacing + 20)
        svg.rect(x: 0, y: 0, width: svg.width, height: svg.height, fill: "#fafafa")
        svg.text(title, x: left, y: 26, size: 16, bold: true)
        let time = PlotScale(data.times.first ?? 0, data.times.last ?? 1, pixels: left, width - PlotPanel.legendWidth, exact: true)
        for (index, panel) in panels.enumerated() {
            panel.draw(into: &svg, times: data.times, time: time, top: top + Double(index) * spacing)
        }
        svg.text("time (s)", x: (time.from + time.to) / 2, y: svg.height - 12, size: 12, anchor: "middle")
        return svg.xml
    }

    private static let axisColors = ["#d62728", "#2ca02c", "#1f77b4"]

    private static func panels(_ data: TracePlotData, fuse: Bool) -> [PlotPanel] {
        func vectorSeries(_ values: [Vector3?], names: [String]) -> [PlotPanel.Series] {
            (0..<3).map { axis in PlotPanel.Series(name: names[axis], color: axisColors[axis], values: values.map { $0?[axis] }) }
        }
        var panels: [PlotPanel] = []
        if fuse {
            let attitude = vectorSeries(data.attitude, names: ["roll", "pitch", "yaw"]).map { series in
                var series = series
                series.wraps = true
                return series
            }
            panels.append(PlotPanel(id: "panel-attitude", title: "Attitude (°, \(data.frame.description))",
                                    content: .lines(attitude, range: -180...180, step: 90)))
            if data.kinds.contains(.magnetometer) {
                let heading = PlotPanel.Series(name: "heading", color: "#9467bd", values: data.heading, wraps: true)
                panels.append(PlotPanel(id: "panel-heading", title: "Heading (° from magnetic north)",
                                        content: .lines([heading], range: 0...360, step: 90)))
            }
        }
        let xyz = ["x", "y", "z"]
        if data.kinds.contains(.accelerometer) {
            panels.append(PlotPanel(id: "panel-acceleration", title: "Acceleration (G)",
                                    content: .lines(vectorSeries(data.acceleration, names: xyz), range: nil, step: nil)))
        }
        if data.kinds.contains(.gyroscope) {
            panels.append(PlotPanel(id: "panel-rotation-rate", title: "Rotation rate (rad/s)",
                                    content: .lines(vectorSeries(data.rotationRate, names: xyz), range: nil, step: nil)))
        }
        if data.kinds.contains(.magnetometer) {
            panels.append(PlotPanel(id: "panel-magnetic-field", title: "Magnetic field (µT)",
                                    content: .lines(vectorSeries(data.magneticField, names: xyz), range: nil, step: nil)))
        }
        let marks = data.events.map { event -> PlotPanel.Mark in
            switch event {
            case .orientation(let orientation, let t): return PlotPanel.Mark(time: t, lane: 0, label: orientation.rawValue)
            case .tilt(let tilt, let t): return PlotPanel.Mark(time: t, lane: 3, label: tilt.rawValue)
            case .shake(let phase, let t): return PlotPanel.Mark(time: t, lane: 1, label: phase.rawValue)
            case .gesture(let gesture, let t): return PlotPanel.Mark(time: t, lane: 2, label: gesture.rawValue)
            case .posture(let posture, let t): return PlotPanel.Mark(time: t, lane: 4, label: posture.rawValue)
            }
        }
        panels.append(PlotPanel(id: "panel-events", title: "Events (\(marks.count))",
                                content: .events(lanes: [("orientation", "#1f77b4"), ("shake", "#d62728"), ("gesture", "#2ca02c"), ("tilt", "#9467bd"), ("posture", "#8c564b")], marks: marks)))
        return panels
    }
}
