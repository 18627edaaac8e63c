"""Every lint rule, sorted by code. A test checks this tuple against the modules in rules/."""

from __future__ import annotations

from .rule import Rule
from .rules.mld001_activation_into_logit_loss import ActivationIntoLogitLoss
from .rules.mld002_nll_without_log_softmax import NllWithoutLogSoftmax
from .rules.mld003_sigmoid_then_bce import SigmoidThenBce
from .rules.mld004_cross_entropy_float_targets import CrossEntropyFloatTargets
from .rules.mld005_regression_shape_broadcast import RegressionShapeBroadcast
from .rules.mld010_missing_zero_grad import MissingZeroGrad
from .rules.mld011_zero_grad_before_step import ZeroGradBeforeStep
from .rules.mld012_step_before_backward import StepBeforeBackward
from .rules.mld013_scheduler_before_optimizer import SchedulerBeforeOptimizer
from .rules.mld014_accumulation_without_scaling import AccumulationWithoutScaling
from .rules.mld015_optimizer_missing_parameters import OptimizerMissingParameters
from .rules.mld016_backward_under_no_grad import BackwardUnderNoGrad
from .rules.mld017_optimizer_not_zeroed import OptimizerNotZeroed
from .rules.mld018_zero_grad_clears_accumulation import ZeroGradClearsAccumulation
from .rules.mld019_accumulation_divided_by_running_count import AccumulationDividedByRunningCount
from .rules.mld020_evaluation_without_eval_mode import EvaluationWithoutEvalMode
from .rules.mld021_train_mode_not_restored import TrainModeNotRestored
from .rules.mld022_evaluation_without_no_grad import EvaluationWithoutNoGrad
from .rules.mld023_dropout_ignores_training_mode import DropoutIgnoresTrainingMode
from .rules.mld024_dropout_given_keep_probability import DropoutGivenKeepProbability
from .rules.mld025_frozen_module_in_train_mode import FrozenModuleInTrainMode
from .rules.mld030_graph_break_on_loss_path import GraphBreakOnLossPath
from .rules.mld031_inplace_on_leaf_parameter import InplaceOnLeafParameter
from .rules.mld032_accumulated_loss_keeps_graph import AccumulatedLossKeepsGraph
from .rules.mld033_requires_grad_typo import RequiresGradTypo
from .rules.mld034_accumulation_step_condition import AccumulationStepCondition
from .rules.mld035_gan_fake_not_detached import GanFakeNotDetached
from .rules.mld036_policy_loss_advantage_not_detached import PolicyLossAdvantageNotDetached
from .rules.mld037_target_aliases_prediction import TargetAliasesPrediction
from .rules.mld038_optimizer_never_stepped import OptimizerNeverStepped
from .rules.mld039_epoch_schedule_stepped_per_batch import EpochScheduleSteppedPerBatch
from .rules.mld040_view_as_transpose import ViewAsTranspose
from .rules.mld041_squeeze_without_dim_on_loss_path import SqueezeWithoutDimOnLossPath
from .rules.mld042_mean_over_batch_in_forward import MeanOverBatchInForward
from .rules.mld043_td_target_not_detached import TdTargetNotDetached
from .rules.mld045_layers_in_plain_list import LayersInPlainList
from .rules.mld050_train_loader_without_shuffle import TrainLoaderWithoutShuffle
from .rules.mld051_preprocessing_fit_before_split import PreprocessingFitBeforeSplit
from .rules.mld052_fit_transform_on_test import FitTransformOnTest
from .rules.mld053_dataset_rng_without_worker_seed import DatasetRngWithoutWorkerSeed
from .rules.mld054_distributed_sampler_without_set_epoch import (
    DistributedSamplerWithoutSetEpoch,
)
from .rules.mld055_eval_loader_drops_last import EvalLoaderDropsLast
from .rules.mld056_eval_split_shares_augmentation import EvalSplitSharesAugmentation
from .rules.mld060_log_of_softmax import LogOfSoftmax
from .rules.mld061_log_without_clamp import LogWithoutClamp
from .rules.mld062_divide_by_std_without_eps import DivideByStdWithoutEps
from .rules.mld063_fp16_autocast_without_scaler import Fp16AutocastWithoutScaler
from .rules.mld070_torch_load_without_weights_only import TorchLoadWithoutWeightsOnly
from .rules.mld071_swallowing_except_in_training import SwallowingExceptInTraining
from .rules.mld072_bias_before_batchnorm import BiasBeforeBatchNorm
from .rules.mld073_discarded_clip_grad_norm import DiscardedClipGradNorm
from .rules.mld074_clip_after_optimizer_step import ClipAfterOptimizerStep
from .rules.mld075_clip_on_scaled_gradients import ClipOnScaledGradients
from .rules.mld076_lr_scheduler_never_stepped import LrSchedulerNeverStepped

RULES: tuple[type[Rule], ...] = (
    ActivationIntoLogitLoss,
    NllWithoutLogSoftmax,
    SigmoidThenBce,
    CrossEntropyFloatTargets,
    RegressionShapeBroadcast,
    MissingZeroGrad,
    ZeroGradBeforeStep,
    StepBeforeBackward,
    SchedulerBeforeOptimizer,
    AccumulationWithoutScaling,
    OptimizerMissingParameters,
    BackwardUnderNoGrad,
    OptimizerNotZeroed,
    ZeroGradClearsAccumulation,
    AccumulationDividedByRunningCount,
    EvaluationWithoutEvalMode,
    TrainModeNotRestored,
    EvaluationWithoutNoGrad,
    DropoutIgnoresTrainingMode,
    DropoutGivenKeepProbability,
    FrozenModuleInTrainMode,
    GraphBreakOnLossPath,
    InplaceOnLeafParameter,
    AccumulatedLossKeepsGraph,
    RequiresGradTypo,
    AccumulationStepCondition,
    GanFakeNotDetached,
    PolicyLossAdvantageNotDetached,
    TargetAliasesPrediction,
    OptimizerNeverStepped,
    EpochScheduleSteppedPerBatch,
    ViewAsTranspose,
    SqueezeWithoutDimOnLossPath,
    MeanOverBatchInForward,
    TdTargetNotDetached,
    LayersInPlainList,
    TrainLoaderWithoutShuffle,
    PreprocessingFitBeforeSplit,
    FitTransformOnTest,
    DatasetRngWithoutWorkerSeed,
    DistributedSamplerWithoutSetEpoch,
    EvalLoaderDropsLast,
    EvalSplitSharesAugmentation,
    LogOfSoftmax,
    LogWithoutClamp,
    DivideByStdWithoutEps,
    Fp16AutocastWithoutScaler,
    TorchLoadWithoutWeightsOnly,
    SwallowingExceptInTraining,
    BiasBeforeBatchNorm,
    DiscardedClipGradNorm,
    ClipAfterOptimizerStep,
    ClipOnScaledGradients,
    LrSchedulerNeverStepped,
)

