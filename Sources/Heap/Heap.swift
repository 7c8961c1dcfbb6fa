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

    /// Turns transparent huge pages off for this process (`PR_SET_THP_DISABLE`; they stay off for the
    /// threads and processes it starts). x264 asks for them (`madvise`) on every buffer of 2 MB or more,
    /// and where the system gives them on request the kernel clears each 2 MB page, and first compacts
    /// memory to find one, at the first touch: 50-130 ms of a 2 s render at `ultrafast`, varying from
    /// render to render, for no measurable gain in x264's speed. Measured (world tour, 10 alternating
    /// runs): x264 alone 2.205 -> 2.158 s, maptrip's render 2.363 -> 2.280 s. Returns whether they are off.
    @discardableResult
    public static func avoidHugePages() -> Bool {
        _ = maptrip_disable_transparent_huge_pages()
        return maptrip_transparent_huge_pages_disabled() == 1
    }
}
