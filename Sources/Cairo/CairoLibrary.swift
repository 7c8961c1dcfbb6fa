import CCairo

/// The Cairo and pixman this process draws with.
public enum CairoLibrary {
    /// Both versions as the libraries report them, e.g. "cairo 1.16.0, pixman 0.42.2".
    public static var versions: String {
        "cairo \(String(cString: cairo_version_string())), pixman \(String(cString: pixman_version_string()))"
    }
}
