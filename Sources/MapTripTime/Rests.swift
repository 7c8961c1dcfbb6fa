import MapTripScene

extension Timeline {
    /// The frames place i rests on, where its voice plays: from the first frame the camera rests on it
    /// (`Slot.arriveFrame`; the first place's from frame 0) to the next place's slot, the last place's to
    /// the trip's end (its outro and closing included). Empty for a place with no slot.
    public func restFrames(of i: Int) -> Range<Int> {
        guard slots.indices.contains(i) else { return 0..<0 }
        let end = i == slots.count - 1 ? frameCount : slots[i].endFrame
        return slots[i].arriveFrame..<max(slots[i].arriveFrame, end)
    }

    /// Seconds each place rests (`restFrames`), in place order.
    public var restSeconds: [Double] {
        slots.indices.map { Double(restFrames(of: $0).count) / Double(fps) }
    }
}
