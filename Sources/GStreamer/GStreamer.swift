import CGStreamer
