"""MDDFClassifier: Algorithm 2 of Lv, Yang and Zhou as a scikit-learn classifier."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris, make_classification
from sklearn.dummy import DummyClassifier
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from mddf import MDDFClassifier
from mddf.margin.margins import margins
from mddf.utils._stopping import improves

#: calibration=None: these tests read the mixture of eq. 9 itself (calibration has its own tests); the paper's four
#: forests a layer (the boosted member has its own tests)
FAST = dict(n_estimators=8, max_layers=3, calibration=None, forest_types=("rf", "rf", "crf", "crf"), random_state=0)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(300, 8, n_informative=5, n_redundant=1, n_classes=3, class_sep=0.8, random_state=0)
    return X[:200], y[:200], X[200:], y[200:]


@pytest.fixture(scope="module")
def fitted(data):
    X, y, _, _ = data
    return MDDFClassifier(n_tolerant_layers=3, **FAST).fit(X, y)


def test_fit_predict_score(fitted, data):
    _, _, Xt, yt = data
    proba = fitted.predict_proba(Xt)
    assert proba.shape == (100, 3)
    assert proba.sum(axis=1) == pytest.approx(np.ones(100))
    assert np.array_equal(fitted.predict(Xt), fitted.classes_[proba.argmax(axis=1)])
    assert fitted.score(Xt, yt) > 0.6


def test_history_records_every_grown_layer(fitted):
    assert fitted.n_layers_ == len(fitted.layers_) == len(fitted.alphas_) == len(fitted.oof_features_)
    assert len(fitted.train_history_) >= fitted.n_layers_
    keys = {"layer", "alpha", "oof_accuracy", "margin_mean", "margin_std", "margin_ratio", "loss", "fit_seconds"}
    for t, record in enumerate(fitted.train_history_, start=1):
        assert keys <= set(record) and record["layer"] == t
        assert record["margin_ratio"] == pytest.approx(record["margin_std"] / record["margin_mean"])
    assert fitted.stop_reason_


def test_history_records_each_members_own_out_of_fold_accuracy(data):
    X, y, _, _ = data
    clf = MDDFClassifier(**{**FAST, "forest_types": ("rf", DummyClassifier(strategy="prior"))}).fit(X, y)
    for record in clf.train_history_:
        assert len(record["forest_oof_accuracy"]) == 2
    # the first layer weighs every row alike: a member that always says the majority class scores its share
    first = clf.train_history_[0]["forest_oof_accuracy"]
    assert first[1] == pytest.approx(np.bincount(y).max() / len(y))
    assert first[0] > first[1] + 0.2
    alone = MDDFClassifier(**{**FAST, "forest_types": ("rf",)}).fit(X, y).train_history_
    assert [r["forest_oof_accuracy"] for r in alone] == [[r["layer_oof_accuracy"]] for r in alone]


# depth factors with which this data keeps several layers under each reading (small
# forests, so which layers help depends on the random stream; the precondition is asserted)
@pytest.mark.parametrize("reading, depth_factor", [("normalized", 1), ("additive", 1)])
def test_prediction_is_the_alpha_weighted_mean_of_the_layers_class_vectors(data, reading, depth_factor):
    # eq. 9: F(x) = sum_t alpha_t h_t(x); predict_proba = F / sum alpha, and each
    # layer sees [x, f_{t-1} / sum alpha] (eq. 7 up to a common scale)
    X, y, Xt, _ = data
    clf = MDDFClassifier(cumulative_margin=reading, max_depth_factor=depth_factor, n_tolerant_layers=3, **FAST).fit(
        X, y
    )
    assert clf.n_layers_ >= 2
    # each layer sees the mixture so far, mix_t = (1 - beta_t) mix_{t-1} + beta_t h_t
    # (the alpha-weighted mean of the layers up to t); the prediction is the alpha-weighted
    # mean of all kept layers' class vectors
    X_t, mix, layer_h = Xt.astype(np.float32), None, []
    for t, (block, share) in enumerate(zip(clf.layers_, clf.layer_shares_), start=1):
        h = block.predict_proba(clf._policy().layer_input(X_t, mix, t)).mean(axis=1)
        layer_h.append(h)
        mix = h if t == 1 else (1 - share) * mix + share * h
    weighted = sum(alpha * h for alpha, h in zip(clf.alphas_, layer_h))
    assert clf.predict_proba(Xt) == pytest.approx(mix)
    assert clf.predict_proba(Xt) == pytest.approx(weighted / clf.alphas_.sum())
    assert clf.transform(Xt) == pytest.approx(mix.astype(np.float32), abs=1e-6)
    if reading == "normalized":
        assert clf.alphas_.sum() == pytest.approx(1.0)
        assert clf.layer_shares_[0] == 1.0
    else:
        # alpha_t / sum_{l<=t} alpha_l is the layer's share
        assert clf.layer_shares_ == pytest.approx(clf.alphas_ / np.cumsum(clf.alphas_))


def test_staged_output_ends_with_predict_proba(fitted, data):
    _, _, Xt, _ = data
    staged = list(fitted.staged_predict_proba(Xt))
    assert len(staged) == fitted.n_layers_
    assert np.array_equal(staged[-1], fitted.predict_proba(Xt))
    labels = list(fitted.staged_predict(Xt))
    assert np.array_equal(labels[-1], fitted.predict(Xt))


@pytest.mark.parametrize("params", [dict(), dict(predictor="forest"), dict(predictor="forest", predictor_input="auto")])
def test_the_stages_end_with_predict_proba_calibrated_or_through_the_predictor(data, params):
    # as scikit-learn's staged methods: the last stage is predict_proba, the last staged label predict. Every stage
    # is calibrated by the fitted temperature (the labels are the mixture's); with a predictor that predicts (and
    # no calibration then), the stages before the last are the cascade's mixtures
    X, y, Xt, _ = data
    common = dict(FAST, calibration="temperature", max_depth_factor=1, n_tolerant_layers=3)
    plain = list(MDDFClassifier(**{**common, "calibration": None}).fit(X, y).staged_predict_proba(Xt))
    clf = MDDFClassifier(**common, **params).fit(X, y)
    stages, labels = list(clf.staged_predict_proba(Xt)), list(clf.staged_predict(Xt))
    assert len(stages) == len(labels) == len(plain) == clf.n_layers_ == 3
    assert np.array_equal(stages[-1], clf.predict_proba(Xt)) and np.array_equal(labels[-1], clf.predict(Xt))
    if clf.calibration_ is not None:
        assert "predictor" not in params
        assert all(np.array_equal(stage, clf.calibration_.apply(p)) for stage, p in zip(stages, plain))
    else:
        assert clf.predictor_input_ in ("stacked", "blend", "raw")
        assert all(np.array_equal(stage, p) for stage, p in zip(stages[:-1], plain[:-1]))
    for stage, p, label in zip(stages[:-1], plain, labels):
        assert np.array_equal(label, clf.classes_[stage.argmax(axis=1)])
        assert np.array_equal(stage.argmax(axis=1), p.argmax(axis=1))


def test_transform_and_fit_transform_shapes(data):
    X, y, Xt, _ = data
    clf = MDDFClassifier(
        max_layers=2, n_tolerant_layers=2, n_estimators=5, forest_types=FAST["forest_types"], random_state=0
    )
    Z = clf.fit_transform(X, y)
    assert Z.shape == (200, 3) and Z.dtype == np.float32
    assert np.array_equal(Z, clf.oof_features_[-1])
    assert clf.transform(Xt, layer=1).shape == (100, 3)
    per_forest = MDDFClassifier(passed_features="per_forest", **FAST).fit(X, y)
    assert per_forest.transform(Xt).shape == (100, 12)
    with pytest.raises(ValueError, match="layer must be an integer in"):
        clf.transform(Xt, layer=clf.n_layers_ + 1)


def test_fit_transform_features_are_out_of_fold():
    # pure noise: in-sample features would predict the training labels perfectly
    rng = np.random.RandomState(0)
    X, y = rng.rand(240, 6), rng.randint(0, 2, 240)
    clf = MDDFClassifier(n_estimators=20, max_layers=1, max_depth_factor=None, random_state=0)
    Z = clf.fit_transform(X, y)
    assert np.mean(Z.argmax(axis=1) == y) < 0.62
    assert np.mean(clf.transform(X).argmax(axis=1) == y) > 0.8


def test_first_layer_alpha_and_margins_follow_algorithm_2(data):
    X, y, _, _ = data
    clf = MDDFClassifier(
        alpha_solver="exact", cumulative_margin="additive", max_layers=1, n_estimators=5, random_state=0
    ).fit(X, y)
    from mddf.margin.alpha import solve_alpha_exact
    from mddf.margin.loss import MarginDistributionLoss

    h = clf.oof_features_[0]
    gamma = margins(h, np.searchsorted(clf.classes_, y))
    loss = MarginDistributionLoss(0.8, 0.05)
    assert clf.alphas_[0] == pytest.approx(solve_alpha_exact(np.zeros(len(y)), gamma, loss), rel=1e-5)


@pytest.mark.parametrize(
    "params",
    [
        dict(forest_types=("rf", "rf", "rf", "rf")),  # mdDF_SF
        dict(input_features="stacking"),  # mdDF_ST
        dict(input_features="raw"),  # mdDF_NP
        dict(margin_optimization=False, passed_features="per_forest", max_depth_factor=None),  # gcForest cascade
        dict(class_vectors="oob"),
        dict(weighting="sample_weight"),
        dict(weighting="resample_fold"),
        dict(alpha_solver="exact", cumulative_margin="additive"),
        dict(validation_fraction=0.25),
    ],
    ids=[
        "same-forests",
        "stacking",
        "no-preconc",
        "gcforest",
        "oob",
        "sample-weight",
        "fold-resample",
        "exact-additive",
        "validation",
    ],
)
def test_variants(data, params):
    X, y, Xt, yt = data
    clf = MDDFClassifier(**{**FAST, **params}).fit(X, y)
    assert clf.score(Xt, yt) > 0.55
    if params.get("margin_optimization") is False:
        assert np.all(clf.alphas_ == 1.0)
        # gcForest: the prediction is the last layer's mean class vector alone
        last = list(clf._staged(Xt))[-1][0]
        assert clf.predict_proba(Xt) == pytest.approx(last.reshape(len(Xt), 4, 3).mean(axis=1))
    if "validation_fraction" in params:
        assert all("val_accuracy" in r for r in clf.train_history_)


def test_layer_inputs_per_variant(data):
    X, y, _, _ = data
    X = X.astype(np.float32)
    f = np.ones((len(X), 3), dtype=np.float32)
    assert MDDFClassifier()._policy().layer_input(X, f, 2).shape == (200, 11)
    assert np.array_equal(MDDFClassifier(input_features="stacking")._policy().layer_input(X, f, 2), f)
    assert MDDFClassifier(input_features="raw")._policy().layer_input(X, f, 2) is X
    assert MDDFClassifier()._policy().layer_input(X, None, 1) is X


def test_stops_early_and_keeps_the_best_prefix(data):
    X, y, _, _ = data
    clf = MDDFClassifier(n_estimators=5, max_layers=10, n_tolerant_layers=1, min_gain_se=0.0, random_state=0).fit(X, y)
    accs = [r["oof_accuracy"] for r in clf.train_history_]
    assert clf.n_layers_ == int(np.argmax(accs)) + 1
    if len(accs) < 10:
        assert accs[-1] <= max(accs[:-1]) and "did not improve" in clf.stop_reason_


@pytest.mark.parametrize(
    "gained, lost, min_gain_se, expected",
    [
        (10, 4, 1.0, True),  # 6 > sqrt(14) = 3.74
        (5, 2, 1.0, True),  # 3 > sqrt(7) = 2.65
        (4, 2, 1.0, False),  # 2 < sqrt(6) = 2.45, although the accuracy went up
        (4, 2, 0.0, True),  # the plain rule: any net gain
        (3, 3, 0.0, False),  # same accuracy is no improvement
        (0, 0, 0.0, False),
        (30, 10, 3.0, True),  # 20 > 3 sqrt(40) = 18.97
        (28, 10, 3.0, False),  # 18 < 3 sqrt(38) = 18.49
    ],
)
def test_a_layer_improves_only_by_a_paired_margin_of_standard_errors(gained, lost, min_gain_se, expected):
    # McNemar: rows the new layer newly gets right (b) against rows it newly gets
    # wrong (c); an improvement needs b - c > min_gain_se * sqrt(b + c)
    n = 100
    best = np.zeros(n, dtype=bool)
    best[:50] = True  # the best layer so far: rows 0-49 right
    new = best.copy()
    new[:lost] = False
    new[50 : 50 + gained] = True
    assert improves(new, best, new.mean(), best.mean(), min_gain_se=min_gain_se) is expected
    assert improves(new, None, new.mean(), -np.inf, min_gain_se=min_gain_se)  # the first layer always counts


@pytest.mark.parametrize(
    "accuracy, best, min_error_reduction, expected",
    [
        (0.90, 0.80, 0.005, True),  # error 0.10 against 0.20: halved
        (0.8009, 0.80, 0.005, False),  # error 0.1991 is not below 0.2 * 0.995 = 0.199
        (0.8011, 0.80, 0.005, True),  # 0.1989 is
        (0.8009, 0.80, 0.0, True),  # the plain rule: any gain
        (1.0, 1.0, 0.005, False),  # no error left to reduce
        (0.80, 0.80, 0.0, False),
    ],
)
def test_a_layer_improves_only_by_a_relative_reduction_of_the_error(accuracy, best, min_error_reduction, expected):
    # DF21's delta made relative: the new error must be below the best error times (1 - min_error_reduction)
    n = 10_000
    best_rows, rows = np.arange(n) < round(best * n), np.arange(n) < round(accuracy * n)
    assert improves(rows, best_rows, rows.mean(), best_rows.mean(), min_error_reduction=min_error_reduction) is expected


def test_the_relative_error_rule_stops_sooner_on_the_same_layers(data):
    X, y, _, _ = data
    common = dict(n_estimators=10, max_depth_factor=2, max_layers=6, n_tolerant_layers=2, random_state=0)
    plain = MDDFClassifier(min_error_reduction=0.0, **common).fit(X, y)
    strict = MDDFClassifier(min_error_reduction=0.99, **common).fit(X, y)  # a layer must remove 99% of the error
    assert len(strict.train_history_) == 3 and len(plain.train_history_) > 3
    for a, b in zip(strict.train_history_, plain.train_history_):
        assert a["oof_accuracy"] == b["oof_accuracy"]


def test_layers_that_gain_less_than_the_paired_margin_are_not_kept(data):
    X, y, _, _ = data
    common = dict(n_estimators=10, max_depth_factor=2, max_layers=6, n_tolerant_layers=2, random_state=0)
    plain = MDDFClassifier(min_gain_se=0.0, **common).fit(X, y)
    strict = MDDFClassifier(min_gain_se=1e6, **common).fit(X, y)
    # nothing can beat layer 1 by a million standard errors: the cascade stops
    # n_tolerant_layers after it, although the plain rule grows further ...
    assert len(strict.train_history_) == 3
    assert "did not improve for 2 layers (best" in strict.stop_reason_ and "at layer 1)" in strict.stop_reason_
    assert len(plain.train_history_) > 3
    # ... and keeps the most accurate of the layers it grew
    accs = [r["oof_accuracy"] for r in strict.train_history_]
    assert strict.n_layers_ == int(np.argmax(accs)) + 1
    # the layers both grew are the same layers: the rule only decides where to stop
    for a, b in zip(strict.train_history_, plain.train_history_):
        assert a["oof_accuracy"] == b["oof_accuracy"]


def test_bit_identical_across_runs_and_n_jobs(data):
    X, y, Xt, _ = data
    a = MDDFClassifier(n_jobs=1, **FAST).fit(X, y)
    b = MDDFClassifier(n_jobs=2, **FAST).fit(X, y)
    assert np.array_equal(a.predict_proba(Xt), b.predict_proba(Xt))
    assert np.array_equal(a.alphas_, b.alphas_)
    assert np.array_equal(a.oof_features_[-1], b.oof_features_[-1])
    c = MDDFClassifier(random_state=1, **{k: v for k, v in FAST.items() if k != "random_state"}).fit(X, y)
    assert not np.array_equal(a.oof_features_[0], c.oof_features_[0])


def test_pickle_clone_pipeline_and_grid_search(fitted, data):
    X, y, Xt, yt = data
    restored = pickle.loads(pickle.dumps(fitted))
    assert np.array_equal(restored.predict_proba(Xt), fitted.predict_proba(Xt))
    assert clone(fitted).get_params() == fitted.get_params()
    pipe = make_pipeline(StandardScaler(), MDDFClassifier(**FAST)).fit(X, y)
    assert pipe.score(Xt, yt) > 0.55
    search = GridSearchCV(MDDFClassifier(**FAST), {"margin_mean": [0.7, 0.9]}, cv=2).fit(X, y)
    assert search.best_params_["margin_mean"] in (0.7, 0.9)


def test_string_and_non_contiguous_labels():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    clf = MDDFClassifier(**FAST).fit(X, names)
    assert set(clf.predict(X)) <= set(names)
    assert list(clf.classes_) == ["setosa", "versicolor", "virginica"]
    clf = MDDFClassifier(**FAST).fit(X, y * 10 + 3)
    assert list(clf.classes_) == [3, 13, 23]


def test_verbose_prints_one_line_per_layer_and_the_kept_layers_weights(data, capsys):
    X, y, _, _ = data
    clf = MDDFClassifier(verbose=1, **FAST).fit(X, y)
    out = capsys.readouterr().out.splitlines()
    lines = [line for line in out if line.startswith("[mdDF] layer")]
    assert len(lines) == len(out) - 1 == len(clf.train_history_)
    for line, record in zip(lines, clf.train_history_):
        # normalised reading: the share only, its final weight depends on the later layers
        assert f"  share={record['share']:.4f}  " in line and "alpha" not in line
        assert "oof_acc=" in line and "margin_ratio=" in line and line.endswith("s")
    alphas = ", ".join(f"{a:.4g}" for a in clf.alphas_)
    n_grown = len(clf.train_history_)
    assert out[-1] == f"[mdDF] kept {clf.n_layers_} of {n_grown} layers: {clf.stop_reason_}; alphas_=[{alphas}]"
    MDDFClassifier(**FAST).fit(X, y)
    assert capsys.readouterr().out == ""


def test_verbose_alpha_is_the_value_alphas_keeps_with_the_additive_reading(data, capsys):
    X, y, _, _ = data
    clf = MDDFClassifier(verbose=1, cumulative_margin="additive", **FAST).fit(X, y)
    lines = capsys.readouterr().out.splitlines()[:-1]
    assert len(lines) == len(clf.train_history_)
    for t, (line, record) in enumerate(zip(lines, clf.train_history_)):
        assert f"  alpha={record['alpha']:.4g}  share={record['share']:.4f}  " in line
        if t < clf.n_layers_:
            assert record["alpha"] == clf.alphas_[t]


def test_verbose_explains_an_infinite_margin_ratio(capsys):
    # random labels of four classes: the true class does not beat the others on average
    rng = np.random.RandomState(0)
    X, y = rng.rand(200, 5), rng.randint(0, 4, 200)
    clf = MDDFClassifier(verbose=1, n_estimators=4, n_folds=2, max_layers=1, random_state=0).fit(X, y)
    assert clf.train_history_[0]["margin_mean"] <= 0 and clf.train_history_[0]["margin_ratio"] == np.inf
    assert "  margin_ratio=inf (mean margin <= 0)  " in capsys.readouterr().out


def test_verbose_leaves_out_the_layer_weights_without_margin_optimization(data, capsys):
    # alpha_t = beta_t = 1 for the gcForest cascade: nothing to report
    X, y, _, _ = data
    clf = MDDFClassifier(verbose=1, margin_optimization=False, validation_fraction=0.25, **FAST).fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(clf.train_history_) + 1
    assert all(line.startswith("[mdDF] layer") for line in lines[:-1])
    assert lines[-1] == f"[mdDF] kept {clf.n_layers_} of {len(clf.train_history_)} layers: {clf.stop_reason_}"
    assert not any("alpha" in line or "share=" in line for line in lines)
    assert all("oof_acc=" in line and "val_acc=" in line for line in lines[:-1])


def test_clear_errors(data):
    X, y, _, _ = data
    with pytest.raises(ValueError, match=r"y has only one class \(0.0\); MDDFClassifier needs samples of at least 2"):
        MDDFClassifier(**FAST).fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match=r"y has only one class \('a'\); MDDFClassifier needs"):
        MDDFClassifier(**FAST).fit(X, np.array(["a"] * len(X), dtype=object))  # labels without .item()
    X_inf = X.copy()  # NaN is a missing value (tests/mddf/test_missing_values.py); inf is an error
    X_inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        MDDFClassifier(**FAST).fit(X_inf, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        MDDFClassifier(**FAST).fit(X, y[:-1])
    y_rare = y.copy()
    y_rare[:2] = 7
    with pytest.raises(ValueError, match="class 7 has 2 training samples, fewer than n_folds=3"):
        MDDFClassifier(**FAST).fit(X, y_rare)
    with pytest.raises(ValueError, match="class 'rare' has 2 training samples"):
        MDDFClassifier(**FAST).fit(X, np.where(y_rare == 7, "rare", "common").astype(object))
    fitted = MDDFClassifier(**FAST).fit(X, y)
    with pytest.raises(ValueError, match="8 features"):
        fitted.predict(X[:, :5])
    with pytest.raises(ValueError, match="forest_types"):
        MDDFClassifier(forest_types=("rf", "svm")).fit(X, y)
    with pytest.raises(ValueError, match="margin_mean"):
        MDDFClassifier(margin_mean=1.5).fit(X, y)


@pytest.mark.parametrize("estimator", ["classifier", "regressor"])
def test_n_jobs_set_after_fit_applies_to_prediction(estimator, monkeypatch):
    # as for scikit-learn's forests, a model fitted on many threads can predict on one (and back),
    # with the same bits
    import mddf.blocks.base as block_base
    from mddf import CascadeForestRegressor

    X, y = make_classification(200, 6, random_state=0)
    if estimator == "classifier":
        model, predict = MDDFClassifier(n_estimators=4, max_layers=2, random_state=0, n_jobs=2), "predict_proba"
    else:
        model, predict = CascadeForestRegressor(n_estimators=4, max_layers=2, random_state=0, n_jobs=2), "predict"
        y = X[:, 0] + X[:, 1]
    model.fit(X, y)
    before = getattr(model, predict)(X)
    seen = []
    real = block_base.Parallel

    def recording(n_jobs=None, **kwargs):
        seen.append(n_jobs)
        return real(n_jobs=n_jobs, **kwargs)

    monkeypatch.setattr(block_base, "Parallel", recording)
    after = getattr(model.set_params(n_jobs=1), predict)(X)
    assert seen and set(seen) == {1}
    assert np.array_equal(before, after)
