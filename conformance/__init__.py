"""The streamroute harness: vectors in, any implementation through one adapter, results out."""
