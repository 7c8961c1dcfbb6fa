print("maptrip-bench: under construction")
