import CMalloc

/// The C library's allocator (glibc's malloc), which Cairo, PROJ, shapelib and Swift all allocate from.
public enum Heap {
    /// Whether malloc is glibc's own (not a sanitizer's).
    public static var isGlibcMalloc: Bool { maptrip_malloc_is_glibc() != 0 }

    /// Gives the pages of freed memory back to the system (`malloc_trim`). Freed blocks otherwise stay
    /// with the process: after a phase that allocates much and frees it (loading a map's data), the
    /// process would keep that phase's peak for the rest of its life. Returns whether any was given back
    /// (never under a sanitizer, whose allocator is not glibc's).
    @discardableResult
    public static func giveBackFreePages() -> Bool {
        guard isGlibcMalloc else { return false }
        return malloc_trim(0) != 0
    }

    /// Fills every block malloc hands out with one byte value (glibc's `M_PERTURB`) instead of what the
    /// process last left there. x264 (0.164, Debian 12's) reads memory it allocated before it writes it
    /// in its macroblock tree when B-frames are on (the default): the same pictures at the same settings
    /// encoded to different bytes when the memory it was given had held something else. `ffmpeg -c:v
    /// libx264 -threads 1` on one input gave three files under MALLOC_PERTURB_ unset, 85 and 170, and
    /// one with mbtree or B-frames off. In a render the memory's old contents depend on which thread
    /// freed what first: a batch's clip differed from the Slurm array's clip of the same scene, and 5 of
    /// 12 one-job batches of one scene under load gave 4 different files (14 of 14 identical with this
    /// on). The cost is a memset of each block: the world tour's CPU time was the same within the noise
    /// over two alternating runs (12.4-13.3 s against 12.4-12.7). Returns whether it is on (never under
    /// a sanitizer, whose allocator is not glibc's).
    @discardableResult
    public static func fillNewBlocks() -> Bool {
        guard isGlibcMalloc else { return false }
        return maptrip_malloc_perturb(0x5a) == 1
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
