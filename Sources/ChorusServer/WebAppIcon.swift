import ChorusWeb

/// The app's icon: a white check mark on the household green, full bleed. The maskable
/// one draws the mark smaller, well inside the safe zone (the circle of 40 % of the side
/// around the middle that every launcher's mask keeps). Drawn at start rather than
/// shipped as files.
enum WebAppIcon {
    static let green: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) = (0x2f, 0x6f, 0x4f, 0xff)
    static let white: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) = (0xff, 0xff, 0xff, 0xff)

    /// The check mark's two strokes, as fractions of the side.
    static let strokes: [(from: (Double, Double), to: (Double, Double))] = [
        ((0.28, 0.52), (0.44, 0.68)),
        ((0.44, 0.68), (0.74, 0.36)),
    ]

    /// How much smaller the maskable icon's mark is, around the middle.
    static let maskableScale = 0.7

    /// The farthest any white pixel is from the middle, as a fraction of the side.
    static func reach(maskable: Bool) -> Double {
        let scale = maskable ? maskableScale : 1
        var far = 0.0
        for stroke in strokes {
            for end in [stroke.from, stroke.to] {
                let (dx, dy): (Double, Double) = (end.0 - 0.5, end.1 - 0.5)
                far = max(far, (dx * dx + dy * dy).squareRoot())
            }
        }
        return (far + 0.045) * scale
    }

    static func png(size: Int, maskable: Bool = false) -> [UInt8] {
        var image = PNGImage(width: size, height: size, fill: green)
        let scale = maskable ? maskableScale : 1
        let side = Double(size)
        let half = 0.045 * side * scale
        func place(_ point: (Double, Double)) -> (Double, Double) {
            ((0.5 + (point.0 - 0.5) * scale) * side, (0.5 + (point.1 - 0.5) * scale) * side)
        }
        for y in 0..<size {
            for x in 0..<size {
                let point = (Double(x) + 0.5, Double(y) + 0.5)
                let near = strokes.contains { stroke in
                    distance(point, place(stroke.from), place(stroke.to)) <= half
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
