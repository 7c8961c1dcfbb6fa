/// Outputs: where a recording goes (the target: an atomic file, a folder of images, a stream), how
/// Cairo's premultiplied BGRA becomes the codec's pixels (the pixel path), and how each codec is set up
/// (its profile: options, defaults, what applies). `MediaOutput` puts them together behind one
/// `write / repeatLast / finish / cancel` interface, which the recorder, previews and batches share.
///
/// This module knows nothing of maps, scenes or timelines.
public enum MapTripOutputModule {}
