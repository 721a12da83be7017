/// One panel of a stacked time plot: a framed box over the shared time axis, with its title,
/// gridlines, tick labels and either line series (with a legend) or event marks in named lanes.
struct PlotPanel {
    /// One line: a value per time (nil where there is none, which breaks the line).
    struct Series {
        var name: String
        var color: String
        var values: [Double?]
        /// An angle that jumps by a full turn where it wraps: no line is drawn across the jump.
        var wraps = false
    }

    /// An event at a time, in one of the panel's lanes.
    struct Mark {
        var time: Double
        var lane: Int
        var label: String
    }

    enum Content {
        /// Lines over a y range: fixed (angles) or, when nil, from the data; `step` between ticks
        /// (nil: chosen).
        case lines([Series], range: ClosedRange<Double>?, step: Double?)
        /// Marks in lanes named top to bottom, each lane in its colour.
        case events(lanes: [(name: String, color: String)], marks: [Mark])
    }

    /// The `id` of the panel's SVG group.
    var id: String
    var title: String
    var content: Content

    /// Pixels: the panel's plot area height, and the room the legend takes right of it.
    static let height = 150.0
    static let legendWidth = 110.0

    /// Draws the panel with its plot area's top edge at `top`.
    func draw(into svg: inout SVGDocument, times: [Double], time: PlotScale, top: Double) {
        let bottom = top + Self.height
        svg.beginGroup(id: id)
        svg.text(title, x: time.from, y: top - 8, size: 13, bold: true)
        svg.rect(x: time.from, y: top, width: time.to - time.from, height: Self.height, fill: "#ffffff", stroke: "#888888")
        for tick in time.ticks {
            let x = time.pixel(tick)
            svg.line(x1: x, y1: top, x2: x, y2: bottom, stroke: "#e4e4e4")
            svg.text(time.label(tick), x: x, y: bottom + 14, size: 10, anchor: "middle")
        }
        switch content {
        case .lines(let series, let range, let step):
            drawLines(series, range: range, step: step, into: &svg, times: times, time: time, top: top)
        case .events(let lanes, let marks):
            drawEvents(lanes: lanes, marks: marks, into: &svg, time: time, top: top)
        }
        svg.endGroup()
    }

    private func drawLines(_ series: [Series], range: ClosedRange<Double>?, step: Double?, into svg: inout SVGDocument,
                           times: [Double], time: PlotScale, top: Double) {
        let values = series.flatMap { $0.values.compactMap { $0 } }.filter(\.isFinite)
        let y = range.map { PlotScale($0.lowerBound, $0.upperBound, pixels: top + Self.height, top, step: step, exact: true) }
            ?? PlotScale(values.min() ?? -1, values.max() ?? 1, pixels: top + Self.height, top, step: step)
        for tick in y.ticks {
            let pixel = y.pixel(tick)
            svg.line(x1: time.from, y1: pixel, x2: time.to, y2: pixel, stroke: tick == 0 ? "#b0b0b0" : "#e4e4e4")
            svg.text(y.label(tick), x: time.from - 6, y: pixel + 4, size: 10, anchor: "end")
        }
        for (index, line) in series.enumerated() {
            for segment in segments(of: line, times: times, time: time, y: y) {
                svg.polyline(segment, stroke: line.color, name: "series \(line.name)")
            }
            let legendY = top + 14 + Double(index) * 16
            svg.line(x1: time.to + 12, y1: legendY - 4, x2: time.to + 32, y2: legendY - 4, stroke: line.color, width: 2)
            svg.text(line.name, x: time.to + 38, y: legendY, size: 11)
        }
    }

    /// Seconds without a value after which a line is broken rather than drawn across the gap
    /// (rows without a value are common: a recording has one row per sample of any sensor).
    static let maximumGap = 0.5

    /// The series as screen polylines: broken where values are missing for longer than
    /// ``maximumGap`` or an angle wraps, and thinned to the first, lowest, highest and last
    /// point of each pixel column (what a line that wide can show), so long traces stay small.
    private func segments(of series: Series, times: [Double], time: PlotScale, y: PlotScale) -> [[(x: Double, y: Double)]] {
        var segments: [[(x: Double, y: Double)]] = []
        var current: [(x: Double, y: Double)] = []
        var column: [(x: Double, y: Double)] = []
        var previous: (time: Double, value: Double)?
        func flushColumn() {
            guard let first = column.first, let last = column.last else { return }
            let low = column.min { $0.y < $1.y }!, high = column.max { $0.y < $1.y }!
            var picked: [(x: Double, y: Double)] = []
            for point in [first, low, high, last] where !picked.contains(where: { $0.x == point.x && $0.y == point.y }) {
                picked.append(point)
            }
            current += picked
            column = []
        }
        func endSegment() {
            flushColumn()
            if current.count > 1 { segments.append(current) }
            current = []
        }
        for (t, value) in zip(times, series.values) {
            guard let value, value.isFinite else { continue }
            if let previous, t - previous.time > Self.maximumGap || (series.wraps && abs(value - previous.value) > 180) {
                endSegment()
            }
            previous = (t, value)
            let point = (x: time.pixel(t), y: y.pixel(value))
            if let last = column.last, last.x.rounded(.down) != point.x.rounded(.down) { flushColumn() }
            column.append(point)
        }
        endSegment()
        return segments
    }

    private func drawEvents(lanes: [(name: String, color: String)], marks: [Mark], into svg: inout SVGDocument,
                            time: PlotScale, top: Double) {
        let laneHeight = Self.height / Double(max(1, lanes.count))
        for (index, lane) in lanes.enumerated() {
            svg.text(lane.name, x: time.from - 6, y: top + laneHeight * (Double(index) + 0.5) + 4, size: 10, anchor: "end", fill: lane.color)
        }
        for (index, mark) in marks.enumerated() {
            let x = time.pixel(mark.time), color = lanes[mark.lane].color
            let y = top + laneHeight * (Double(mark.lane) + 0.5)
            svg.line(x1: x, y1: top, x2: x, y2: top + Self.height, stroke: color, dashed: true)
            svg.circle(x: x, y: y, radius: 3.5, fill: color)
            // Alternately above and below the lane's middle, so neighbours overlap less.
            svg.text(mark.label, x: x + 5, y: y + (index.isMultiple(of: 2) ? -6 : 13), size: 10, fill: color)
        }
    }
}
