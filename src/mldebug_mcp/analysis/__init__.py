"""Analysis of training artefacts, in pure Python (no torch, numpy or matplotlib at import time).

Loss curves, in the order the data flows:

    curve_io      read_curve: a log file or folder -> LossLog (series name -> [(step, value)])
    curve_tables  CSV/TSV, JSON lines, JSON arrays and HF trainer_state.json -> series
    tfevents      TensorBoard event files -> series (a minimal protobuf decoder)
    tfrecord      the TFRecord framing under event files, with CRC32C
    curve         analyze_curve: LossLog -> CurveReport (observation keys, findings, spikes)
    curve_stats   robust statistics the detectors share (medians, noise, smoothing, edge levels)
    curve_shape   detectors of levels: nan, loss_zero, flat_from_start, plateau_at_chance, plateau
    curve_trend   detectors of direction: explodes, oscillates, slow_healthy
    curve_spikes  spikes and how they recover
    curve_val     validation against training: train_val_gap, val_too_good
    curve_render  curve_text: the terminal summary of a CurveReport
    curve_plot    write_curve_plot: a PNG (matplotlib, imported inside the function)
"""
