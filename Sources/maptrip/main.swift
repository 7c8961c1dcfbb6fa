print("maptrip: under construction")
