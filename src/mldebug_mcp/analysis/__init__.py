"""Analysis of training artefacts, in pure Python (no torch, numpy or matplotlib at import time).

Loss curves, in the order the data flows:

    curve_io      read_curve: a log file or folder -> LossLog (series name -> points); the size limits
    curve_events  a folder of event files, each opened through safe_read (skipped with a note if refused)
    curve_runs    which event files make one run, and which run of a folder is read
    curve_text    the bounded UTF-8 lines of a text log
    curve_tables  CSV/TSV -> series, streamed in batches of rows
    curve_json    JSON lines (streamed), JSON arrays and HF trainer_state.json -> series
    curve_points  Points: a series as int64 steps and double values; the point budget
    tfevents      TensorBoard event files -> series (a minimal protobuf decoder)
    tfrecord      the TFRecord framing under event files, with CRC32C (google-crc32c when installed), a record at a time
    curve         analyze_curve: LossLog -> CurveReport (observation keys, findings, spikes)
    curve_stats   robust statistics the detectors share (medians, noise, smoothing, edge levels)
    curve_window  the median of a large sliding window (validation against training)
    curve_shape   detectors of levels: nan, loss_zero, flat_from_start, plateau_at_chance, plateau
    curve_trend   detectors of direction: explodes, oscillates, slow_healthy
    curve_spikes  spikes and how they recover
    curve_val     validation against training: train_val_gap, val_too_good
    curve_render  curve_text: the terminal summary of a CurveReport
    curve_plot    write_curve_plot: a PNG (matplotlib, imported inside the function)
"""
