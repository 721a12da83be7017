import MotionCore

/// A small SVG 1.1 writer: shapes and text appended as elements of one document, attribute
/// values and text escaped. Coordinates are user units (pixels), y downwards, written with two
/// decimals.
struct SVGDocument {
    let width: Double
    let height: Double
    private var body = ""

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// The document as XML text.
    var xml: String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(Self.number(width))" height="\(Self.number(height))" \
        viewBox="0 0 \(Self.number(width)) \(Self.number(height))" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">
        \(body)</svg>

        """
    }

    /// Starts a group (`<g id=…>`), ended by ``endGroup()``.
    mutating func beginGroup(id: String) {
        body += "<g id=\"\(Self.escaped(id))\">\n"
    }

    mutating func endGroup() {
        body += "</g>\n"
    }

    mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: String, stroke: String = "none") {
        element("rect", ["x": x, "y": y, "width": width, "height": height].numbers + ["fill": fill, "stroke": stroke])
    }

    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1, dashed: Bool = false) {
        var attributes = ["x1": x1, "y1": y1, "x2": x2, "y2": y2, "stroke-width": width].numbers
        attributes["stroke"] = stroke
        if dashed { attributes["stroke-dasharray"] = "4 3" }
        element("line", attributes)
    }

    /// A connected line through `points`; `name` becomes its `class`, for styling and finding.
    mutating func polyline(_ points: [(x: Double, y: Double)], stroke: String, width: Double = 1.2, name: String) {
        let coordinates = points.map { "\(Self.number($0.x)),\(Self.number($0.y))" }.joined(separator: " ")
        element("polyline", ["points": coordinates, "fill": "none", "stroke": stroke, "stroke-width": Self.number(width),
                             "stroke-linejoin": "round", "class": name])
    }

    mutating func circle(x: Double, y: Double, radius: Double, fill: String) {
        element("circle", ["cx": x, "cy": y, "r": radius].numbers + ["fill": fill])
    }

    /// Text with its anchor (`start`, `middle`, `end`) at (x, y) on the baseline, optionally
    /// turned by `rotation` degrees (clockwise) about that point.
    mutating func text(_ content: String, x: Double, y: Double, size: Double = 11, anchor: String = "start",
                       rotation: Double = 0, bold: Bool = false, fill: String = "#222") {
        var attributes = ["x": x, "y": y, "font-size": size].numbers + ["text-anchor": anchor, "fill": fill]
        if rotation != 0 { attributes["transform"] = "rotate(\(Self.number(rotation)) \(Self.number(x)) \(Self.number(y)))" }
        if bold { attributes["font-weight"] = "bold" }
        body += "<text\(Self.attributeText(attributes))>\(Self.escaped(content))</text>\n"
    }

    private mutating func element(_ name: String, _ attributes: [String: String]) {
        body += "<\(name)\(Self.attributeText(attributes))/>\n"
    }

    /// ` a="1" b="2"`, sorted by name so that output is reproducible.
    private static func attributeText(_ attributes: [String: String]) -> String {
        attributes.sorted { $0.key < $1.key }.map { " \($0.key)=\"\(escaped($0.value))\"" }.joined()
    }

    static func number(_ value: Double) -> String {
        DecimalText.fixed(value, decimals: 2)
    }

    /// XML character data and attribute value escaping.
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}

private extension Dictionary where Key == String, Value == Double {
    /// The values as SVG numbers.
    var numbers: [String: String] { mapValues(SVGDocument.number) }
}

private func + (a: [String: String], b: [String: String]) -> [String: String] {
    a.merging(b) { _, new in new }
}
