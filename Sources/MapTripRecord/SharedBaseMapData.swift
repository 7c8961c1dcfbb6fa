import MapTripRender

extension RenderEnvironment {
    /// This environment with the embedded map's data loaded once and shared by every render that
    /// uses it (a batch's jobs, on several threads), instead of once per render.
    public func sharingBaseMapData() -> RenderEnvironment {
        var shared = self
        if shared.shapefiles == nil { shared.shapefiles = ShapefileStore(cache: geometryCache) }
        return shared
    }
}
