import ChorusWeb

/// The app's icon: a white check mark on the household green, full bleed so the same
/// picture serves as a maskable icon (the mark stays inside the middle 80 % a launcher
/// may keep). Drawn at start rather than shipped as files.
enum WebAppIcon {
    static let green: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) = (0x2f, 0x6f, 0x4f, 0xff)
    static let white: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) = (0xff, 0xff, 0xff, 0xff)

    /// The check mark's two strokes, as fractions of the side.
    static let strokes: [(from: (Double, Double), to: (Double, Double))] = [
        ((0.28, 0.52), (0.44, 0.68)),
        ((0.44, 0.68), (0.74, 0.36)),
    ]

    static func png(size: Int) -> [UInt8] {
        var image = PNGImage(width: size, height: size, fill: green)
        let half = 0.045 * Double(size)
        for y in 0..<size {
            for x in 0..<size {
                let point = (Double(x) + 0.5, Double(y) + 0.5)
                let near = strokes.contains { stroke in
                    distance(point, (stroke.from.0 * Double(size), stroke.from.1 * Double(size)),
                             (stroke.to.0 * Double(size), stroke.to.1 * Double(size))) <= half
                }
                if near { image.set(x: x, y: y, white) }
            }
        }
        return image.encoded
    }

    /// From `point` to the segment `a`-`b`.
    private static func distance(_ point: (Double, Double), _ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1)
        let along = max(0, min(1, ((point.0 - a.0) * dx + (point.1 - a.1) * dy) / (dx * dx + dy * dy)))
        let (cx, cy) = (a.0 + along * dx - point.0, a.1 + along * dy - point.1)
        return (cx * cx + cy * cy).squareRoot()
    }
}
