import CMalloc

/// The C library's allocator (glibc's malloc), which Cairo, PROJ, shapelib and Swift all allocate from.
public enum Heap {
    /// Gives the pages of freed memory back to the system (`malloc_trim`). Freed blocks otherwise stay
    /// with the process: after a phase that allocates much and frees it (loading a map's data), the
    /// process would keep that phase's peak for the rest of its life. Returns whether any was given back
    /// (never under a sanitizer, whose allocator is not glibc's).
    @discardableResult
    public static func giveBackFreePages() -> Bool {
        guard maptrip_malloc_is_glibc() != 0 else { return false }
        return malloc_trim(0) != 0
    }
}
