"""Data loading and preprocessing: DataLoader names, what a loader or dataset is called, and scikit-learn
style preprocessors (MLD050-MLD054)."""

import ast
import re

from ..context import ModuleContext

DATALOADERS = {"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"}
NOT_TRAINING = re.compile(r"val|test|eval")


def name_of(expr: ast.AST | None) -> str:
    """Identifiers along an expression: `self.train_set` -> 'self.train_set', `ds["train"]` ->
    'ds.train', `torch.as_tensor(X_train).float()` -> 'torch.as_tensor.X_train.float'."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.Attribute):
        return f"{name_of(expr.value)}.{expr.attr}"
    if isinstance(expr, ast.Subscript):
        return f"{name_of(expr.value)}.{name_of(expr.slice)}"
    if isinstance(expr, ast.Call):  # a call's name plus its first argument's
        return ".".join([name_of(expr.func)] + [name_of(a) for a in expr.args[:1]])
    return ""


PREPROCESSING_MODULES = tuple(f"sklearn.{m}." for m in (
    "preprocessing", "decomposition", "feature_extraction", "impute", "feature_selection"))
# the same classes under other libraries (cuml, dask_ml) when imported by name
KNOWN = {"StandardScaler", "MinMaxScaler", "RobustScaler", "MaxAbsScaler", "LabelEncoder", "OneHotEncoder",
         "OrdinalEncoder", "PCA", "TfidfVectorizer", "CountVectorizer", "SimpleImputer", "SelectKBest"}
# fit() learns nothing from the values (row-wise or fixed maps): fitting these anywhere is harmless
STATELESS = {"Normalizer", "Binarizer", "FunctionTransformer", "HashingVectorizer", "FeatureHasher",
             "PolynomialFeatures"}
FITS = {"fit", "fit_transform"}


def preprocessor(call: ast.AST, ctx: ModuleContext) -> str | None:
    """'StandardScaler' when `call` is `<preprocessor>.fit(...)`/`.fit_transform(...)` on a
    stateful scikit-learn style preprocessor (built inline or held in a variable)."""
    if ctx.method_name(call) not in FITS:
        return None
    receiver = call.func.value
    name = ctx.call_name(receiver) if isinstance(receiver, ast.Call) else ctx.constructed(receiver)
    short = (name or "").rsplit(".", 1)[-1]
    if not short[:1].isupper() or short in STATELESS:
        return None
    return short if name.startswith(PREPROCESSING_MODULES) or ("." in name and short in KNOWN) else None
