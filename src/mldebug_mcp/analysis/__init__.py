"""Analysis of training artefacts, pure Python (no torch, numpy or matplotlib at import time).

    curve_io      read_curve: CSV/TSV, JSON lines, JSON arrays, HF trainer_state.json and
                  TensorBoard event files -> LossLog
    tfrecord      TFRecord framing and CRC32C (the layer under TensorBoard event files)
    tfevents      the few protobuf messages of an event file that carry scalars
    curve         analyze_curve: LossLog -> CurveReport (observation keys with measured findings)
    curve_stats   robust statistics the detectors share (medians, noise, smoothing, windows)
    curve_shape   detectors on the training loss: nan, zero, flat, plateaus, divergence, oscillation
    curve_spikes  spike detection and recovery classification
    curve_val     detectors that compare validation with training loss
    curve_render  curve_text: the terminal summary of a CurveReport
    curve_plot    write_curve_plot: a PNG (matplotlib, imported lazily)
"""
