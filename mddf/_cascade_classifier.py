"""The margin-distribution deep forest estimator (Lv, Yang and Zhou, Algorithm 2)."""

from __future__ import annotations

from numbers import Real

from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from ._block_classifier import TREE_METHODS, WEIGHTINGS
from ._cascade_base import CascadeBase
from ._layer_features import member_name
from ._margin_policy import MarginPolicy


class MDDFClassifier(CascadeBase, ClassifierMixin, TransformerMixin, BaseEstimator):
    """Margin-distribution deep forest (mdDF).

    A cascade of forest blocks (Algorithm 1). Layer t trains its forests on
    ``[x, f_{t-1}(x)]`` ("preconc") drawn according to the sample distribution
    D_t, and gives every training row an out-of-fold class vector h_t. Its
    margins gamma_t (eq. 46) fix the layer weight alpha_t, the minimiser of the
    mean margin-distribution loss (eq. 48) of the cumulative margin
    ``F_t = F_{t-1} + alpha_t gamma_t`` (Algorithm 2, line 6). The augmented
    feature passed on is ``f_t = f_{t-1} + alpha_t h_t`` (eq. 7) and the next
    distribution is ``D_{t+1} proportional to l_md(F_t)`` (eq. 47). The
    prediction is ``argmax_j f_T^j(x)`` (eq. 9).

    Beyond the paper, and only when asked for: a block may hold
    extremely-randomised forests, XGBoost or any scikit-learn classifier
    beside (or instead of) its forests (``forest_types``), and a final
    estimator may be trained on ``[x, f_T(x)]`` to make the prediction
    (``predictor``, DF21's ``use_predictor``).

    Reference: S.-H. Lv, L. Yang, Z.-H. Zhou, "Forest Representation Learning
    Guided by Margin Distribution" (Algorithms 1-2, equations 5-9 and 45-48,
    configuration of Section 5.2).

    Parameters
    ----------
    n_estimators : int, default=100
        Trees per forest (Section 5.2: 100).
    forest_types : tuple of {"rf", "crf", "et", "gbdt"} or estimator instances, default=("rf", "rf", "crf", "crf")
        The members of each block: random forests and completely-random forests
        (``ExtraTreesClassifier(max_features=1)``). ``("rf",) * 4`` is the
        paper's mdDF_SF variant. Beyond the paper:

        - ``"et"``: extremely-randomised trees (DF21's "ERF",
          ``ExtraTreesClassifier(max_features="sqrt")``): a random threshold on
          each of sqrt(d) candidate features, the best by Gini; no bootstrap,
          like ``"crf"``. Between the two others in randomness: more diverse
          than random forests, stronger than completely-random trees, about as
          cheap as random forests with ``tree_method="hist"``.
        - ``"gbdt"``: XGBoost's ``XGBClassifier`` with fixed settings (XGBoost's
          defaults pinned: 100 rounds, learning rate 0.3, depth 6,
          ``tree_method="hist"``, one thread). Boosting can lower the bias of a
          block of averaged trees, at the cost of sequential rounds for every
          fold model. ``max_depth_factor`` and ``n_estimators`` do not apply.
        - an estimator instance with ``predict_proba`` (any scikit-learn
          classifier, a ``Pipeline``, an ``XGBClassifier`` or ``LGBMClassifier``
          of your settings): cloned for every fold model, so the instance itself
          is never fitted and ``get_params``/``clone`` keep it as it is; every
          ``random_state`` parameter of the clone (nested ones included) is
          drawn from ``random_state``, which makes the cascade reproducible
          and, for a clone whose own ``n_jobs`` does not change its results,
          independent of ``n_jobs``. Its fits run in the block's parallel pool.

        Every member gets k-fold class vectors; with ``class_vectors="oob"`` only
        the forests (``"rf"``, ``"crf"``, ``"et"``) are out-of-bag, the others
        are cross-fitted on ``n_folds`` folds (at k times the cost of one fit).
        D_t reaches a forest as ``weighting`` says and any other member by
        resampling (``"resample"``: its own weighted resample per fold model;
        ``"resample_fold"``: the fold's shared one) or as ``sample_weight``
        (``"sample_weight"`` and ``class_vectors="oob"``); a member whose ``fit``
        takes no ``sample_weight`` is given a weighted resample instead, with a
        ``UserWarning``, so D_t always reaches it. A member whose scikit-learn
        tags reject missing values raises a ``ValueError`` naming it when the
        layer input has NaN; a ``Pipeline`` takes NaN when its steps up to its
        first imputer do. A member whose
        ``predict_proba`` is not finite, not of one column per class of its
        training rows, negative or without a positive value in a row, or that
        sets no ``classes_``, raises a ``ValueError`` naming it (rows that do
        not sum to 1 are divided by their sum). For ``feature_importances_``, a member's
        ``feature_importances_`` (normalised to sum to 1 by scikit-learn and
        XGBoost) is averaged with the forests' impurity decreases; a member
        without them is left out.
    predictor : None, "xgboost", "hgb", "forest" or an estimator instance, default=None
        None: the prediction is the cascade's own, ``argmax f_T`` (eq. 9).
        Otherwise an estimator is trained, after the cascade, on ``[x, f_T(x)]``
        with the out-of-fold ``f_T`` of the training rows (``oof_features_[-1]``,
        so it never learns from class vectors of models that saw the row) and
        makes :meth:`predict` and :meth:`predict_proba` (DF21's
        ``use_predictor``). ``"xgboost"``: the ``"gbdt"`` member's XGBoost
        (one thread, so results do not depend on ``n_jobs``); ``"hgb"``:
        scikit-learn's ``HistGradientBoostingClassifier`` with its defaults (one
        OpenMP thread, for the same reason). With
        ``categorical_splits="subset"`` both split the categorical columns of
        ``x`` into category subsets (XGBoost's ``enable_categorical``,
        HistGradientBoosting's ``categorical_features``), as the trees do.
        ``"forest"``: a
        ``RandomForestClassifier`` of ``4 * n_estimators`` fully grown trees (as
        many as a block of four forests; 400 by default), sqrt(d) features per
        split, ``n_jobs`` threads; an instance is cloned and its ``random_state``
        parameters drawn from ``random_state``. It can correct a cascade whose
        averaged class vectors are poorly calibrated or that needs interactions
        between x and f_T, for one more model to fit and keep.
        The staged outputs, :meth:`transform` and ``oof_features_`` stay the
        cascade's. ``sample_weight`` reaches it as ``sample_weight`` (a predictor
        whose ``fit`` takes none raises a ``ValueError`` with non-uniform weights),
        rows of weight 0 are left out, and a predictor whose tags reject NaN
        (a ``Pipeline``: see ``forest_types``) raises a ``ValueError`` when X
        has missing values.
    predictor_input : {"stacked", "auto"}, default="stacked"
        What the ``predictor`` reads. ``"stacked"``: ``[x, f_T(x)]`` (DF21's
        ``use_predictor``), its probabilities the prediction. ``"auto"``: what
        predicts best by held-out accuracy on the training rows. On a 2-fold
        split of them (stratified by class where every class has two rows), the
        predictor is trained on each half and predicts the other, on
        ``[x, f_T]`` and on ``x`` alone. The candidates are the predictor on
        ``x`` alone and the mixtures ``(1 - w) p_cascade + w p_predictor`` of
        the cascade's out-of-fold probabilities and the predictor's on
        ``[x, f_T]``, for w = 0, 0.05, ..., 1: w = 0 is the cascade alone, w = 1
        the predictor alone. The weight is one more layer weight, fitted on
        held-out rows, as the layers' alpha_t are fitted on the margins
        (Algorithm 2). The comparison leans towards the cascade, whose
        out-of-fold models see ``(n_folds - 1) / n_folds`` of the rows against
        the predictor's half; ties go to the smallest weight, then to ``x``.
        The predictor is then trained on all rows with the chosen input, or not
        at all when w = 0 (``predictor_`` None; the cascade predicts, as
        without a predictor); ``predictor_input_`` and ``predictor_weight_``
        say which. When ``x`` alone wins, :meth:`predict` does not run the
        layers: the cascade's class vectors did not help on these rows, and
        the prediction is the predictor's alone (the staged outputs and
        :meth:`transform` stay the cascade's). It costs four more predictor
        fits on half the rows. Ignored without a ``predictor``.
    pair_features : None, "auto" or PairFeatures, default=None
        Before the first layer, search the training rows for log-ratios and products of pairs of numeric
        columns that a probe tree reads better than the two columns (:class:`mddf.PairFeatures`' search, its
        settings from the instance given; ``"auto"``: its defaults; the cascade sets its seed, threads and
        categorical columns) and append them to ``x`` for every layer, at fit and prediction. Nothing is
        appended, and the model is the one without the search, when no pair helps. None: no search. See
        :ref:`the user guide <pair-features>`.
    calibration : None or "temperature", default=None
        ``"temperature"``: fit ``q ~ (p + eps) ** (1 / T)`` on the kept layers' out-of-fold mixture and apply
        it in :meth:`predict_proba` (the argmax, so every label, unchanged; kept only when it lowers the
        out-of-fold log-loss, and not with a predictor that predicts). None: the mixture as it is (eq. 9). See
        :ref:`the user guide <calibration>`.
    n_folds : int, default=3
        k of the k-fold class vectors (Section 5.2 leaves k open; 3 is
        gcForest's choice and the cheapest that leaves each model 2/3 of the rows).
    fold_trees : {"all", "share", "refit"}, default="all"
        What the k fold models of a forest keep for new rows. ``"all"``: every
        tree, so that new rows get the mean of the k fold models (Algorithm 1,
        k x ``n_estimators`` trees per forest). ``"share"``: each fold model
        keeps its first ``n_estimators / k`` trees, so that new rows get the
        mean of ``n_estimators`` trees drawn from the k fold models, as many as
        one forest fitted on all the rows and as many as gave each training row
        its out-of-fold class vector; the other trees are dropped once they have
        given theirs. k times cheaper to predict and to keep; the training rows'
        class vectors, and so the layers grown, are the same. ``"refit"``: the
        fold models give the out-of-fold class vectors and are dropped, and each
        member is fitted once more on every training row, which alone predicts
        new rows (scikit-learn's ``StackingClassifier`` practice; not in the
        paper). k times cheaper to predict and to keep, one more fit per member;
        the training rows' class vectors are the same, but each layer draws the
        refit's seeds after them, so later layers differ.
    class_vectors : {"kfold", "oob"}, default="kfold"
        ``"kfold"``: Algorithm 1's k-fold cross-fitting (k fits per forest, new
        rows get the mean of the k fold models). ``"oob"``: each forest is
        fitted once with bootstrap and training rows get out-of-bag class vectors,
        about k times cheaper to fit and to keep. Members that are not forests
        (``"gbdt"``, estimator instances) are cross-fitted on k folds either way.
    screening_accuracy : float in (0, 1] or None, default=None
        Confidence screening (Pang, Ting, Zhao and Zhou, "Improving deep forest
        by confidence screening", ICDM 2018; not in the mdDF paper): rows whose
        output is confident enough leave the cascade, so that later layers train
        on fewer rows and a new row passes through fewer trees. None: off. After
        layer t, a row's confidence is the largest class share of the cascade's
        output so far, the mixture ``f_t / sum_{l<=t} alpha_l`` (eq. 7; its
        argmax is the prediction, eq. 9), out-of-fold for the training rows. The
        layer's threshold (``screening_thresholds_``) is the lowest confidence at
        which the training rows still in that are at or above it have an
        out-of-fold accuracy (weighted by ``sample_weight``) of at least
        ``screening_accuracy``; ``inf`` when no such set exists. Those rows leave
        the cascade with their output after layer t, which stays their output,
        their passed features (``oof_features_``, :meth:`transform`) and their
        staged outputs for every later layer. Later layers see only the rows
        still in: they train on them (every ``fold_trees`` and
        ``class_vectors`` choice then folds, bags and refits those rows, and
        ``x`` is binned anew on them), their margins (eq. 46) fit the layer's
        weight alpha_t (eq. 48), and D_{t+1} (eq. 47) is renormalised over
        them, as the screened rows' outputs no longer depend on later layers.
        Early stopping monitors the accuracy over every training row (or
        held-out row), each screened row with its frozen output, so the kept
        prefix is judged on what the screened cascade predicts. With
        ``validation_fraction``, the held-out rows are screened like new rows,
        by the thresholds chosen on the training rows. A new row whose
        confidence after a kept layer (but the last) reaches that layer's
        threshold gets that layer's output and goes through no later layer.
        Growth also stops once the rows still in cannot train a layer: fewer
        than two classes, no row of positive weight, or (for cross-fitted
        members) a class with fewer than ``n_folds`` rows. Cannot be combined
        with a ``predictor`` (a ``ValueError``): a screened row's prediction is
        its exit layer's output, which a predictor would replace.
    max_depth_factor : int or None, default=16
        Trees of layer t are limited to depth ``max_depth_factor * (t + 1)``
        (Section 5.2: ``d_max(t) in {2t+2, 4t+4, 8t+8, 16t+16}``); ``None``
        grows them fully at every layer. Applied to every forest of the block
        (the paper names random forests; the completely-random trees are the
        deepest, so bounding them matters most for memory). The default is the
        paper's largest factor, chosen on letter, satimage, yeast and adult: 4
        and 8 starve the first layers on clean many-class data (letter), while
        on large noisy data (adult) 8 is about as accurate at a lower cost in
        time and memory; see ``docs/benchmarks/cascade-defaults.md``.
    max_layers : int, default=20
        Most layers grown.
    n_tolerant_layers : int, default=2
        Growth stops when the monitored accuracy has not improved (see ``tol``,
        ``min_error_reduction`` and ``min_gain_se``) for this many consecutive
        layers; the prefix with the highest monitored accuracy among the grown
        layers is kept.
    tol : float, default=0.0
        An accuracy must exceed the best so far by more than ``tol`` to count as
        an improvement.
    min_error_reduction : float in [0, 1), default=0.005
        A layer must also lower the monitored error (one minus the accuracy)
        below the best layer's by more than this fraction of it: with the best
        error ``e``, an improvement needs an error below ``e * (1 -
        min_error_reduction)`` (DF21's ``delta``, made relative, as the error's
        scale differs from one dataset to another). It keeps the cascade from
        growing layers for gains of a few rows. 0 is the plain "any improvement"
        rule of gcForest, which the paper does not replace (it does not say how
        mdDF stops): ``min_error_reduction=0`` gives it. The default 0.005 was
        chosen among gcForest's rule, ``min_gain_se``, DF21's rule with a
        relative delta and rules on the margin-distribution loss as the one that
        grew the fewest layers while keeping the accuracy on letter, satimage,
        adult and yeast (see ``docs/benchmarks/cascade-defaults.md``).
    min_gain_se : float >= 0, default=0.0
        A layer must also beat the best layer so far by more than ``min_gain_se``
        standard errors of a paired comparison on the same rows (McNemar): with
        ``b`` rows it newly classifies right and ``c`` rows it newly gets wrong,
        an improvement needs ``b - c > min_gain_se * sqrt(b + c)``, where
        ``sqrt(b + c)`` is the standard deviation of ``b - c`` if the two layers
        were equally accurate. 0 is the plain "any improvement" rule (gcForest's;
        the paper does not say how it stops). A positive value stops large noisy
        problems sooner, with fewer layers, less time and less memory, at some
        risk to accuracy (see ``docs/benchmarks/cascade-defaults.md``).
    validation_fraction : float in (0, 1) or None, default=None
        None monitors the out-of-fold training accuracy of f_t. A float holds out
        that stratified fraction of the rows, trains on the rest and monitors
        the held-out accuracy.
    input_features : {"preconc", "stacking", "raw"}, default="preconc"
        Input of layers t >= 2: ``[x, f_{t-1}]`` (the paper's mdDF), ``f_{t-1}``
        alone (mdDF_ST, stacking) or ``x`` alone (mdDF_NP, no preconc).
    passed_features : {"mean", "per_forest"}, default="mean"
        What the next layer sees of this one: the block's mean class vector
        (s columns, the paper's f_t) or every forest's class vector side by side
        (n_forests * s columns, as gcForest does).
    margin_optimization : bool, default=True
        False turns the margin machinery off and gives the cascade of gcForest
        (Zhou and Feng; the note after eq. 9): uniform D_t, alpha_t = 1,
        non-additive ``f_t = h_t``, prediction from the last layer alone.
    cumulative_margin : {"normalized", "additive"}, default="normalized"
        How Algorithm 2 (lines 6 and 8) reads the cumulative margin
        ``sum_{l<=t} alpha_l gamma_l``. ``"additive"``: literally, so alpha_t
        minimises ``mean l_md(F_{t-1} + alpha gamma_t)``. Once the first layer
        has brought the mean margin to ``margin_mean``, any later layer with
        positive margins overshoots it, so later alphas come out near 0 and the
        prediction stays with the (shallow) first layers (an example on letter:
        ``docs/benchmarks/cascade-defaults.md``).
        ``"normalized"``: divided by ``sum alpha``, as Section 3 takes alpha in
        the simplex so that margins lie in [-1, 1]; alpha_t then weighs the new
        layer against the mixture of the previous ones (see
        :func:`mddf.solve_layer_share`), and a better layer gets a
        larger share. Both feed ``l_md`` of the same cumulative margin to the
        reweighting of eq. 47.
    margin_mean : float in (0, 1), default=0.8
        gamma of eq. 48, the margin mean the loss aims at (paper's grid
        {0.7, 0.75, 0.8, 0.85, 0.9, 0.95}).
    margin_tradeoff : float > 0, default=0.05
        mu of eq. 48, the weight of deviations above the mean relative to those
        below (paper's grid {0.01, 0.05, 0.1}).
    alpha_solver : {"sgd", "exact"}, default="sgd"
        ``"sgd"``: projected mini-batch SGD from alpha = 1, as the paper says.
        ``"exact"``: the exact minimiser of the piecewise quadratic objective.
    weighting : {"resample", "resample_fold", "sample_weight"}, default="resample"
        How D_t reaches the forests (Algorithm 1: "re-sample a training set with
        the distribution D_t"; for the other members see ``forest_types``). ``"resample"``: every tree trains on its own
        weighted resample of the fold's training rows (for random forests, the
        bootstrap itself is drawn from D_t). ``"resample_fold"``: one weighted
        resample per fold, shared by the block, which random forests bootstrap
        again; the rows it misses (about e^-1) are lost to the whole fold.
        ``"sample_weight"``: D_t as sample weights. ``"resample"`` is the
        default because it was at least as accurate as ``"resample_fold"`` on
        letter, satimage and adult, with smaller models on adult, and
        ``"sample_weight"`` was clearly better only on the smallest, noisiest set
        (yeast); see ``docs/benchmarks/cascade-defaults.md``.
        ``class_vectors="oob"`` always uses sample weights.
    tree_method : {"hist", "exact"}, default="hist"
        How the forests' trees are grown. ``"hist"``: by :mod:`mddf.trees`,
        on the layer input quantised once per layer to at most 256 bins per
        feature (equal-frequency quantiles; lossless for a feature with at most
        256 distinct values), with scikit-learn's split rules (the best Gini split
        over sqrt(d) features; for completely-random trees one random feature and
        a random threshold, drawn among the bin boundaries, i.e. uniformly in
        rank), stored as one 4-byte word a split (pure leaves folded into their
        splits; :mod:`mddf.trees.nodes`). ``"exact"``: scikit-learn's
        ``DecisionTreeClassifier`` and ``ExtraTreeClassifier`` on the float values,
        10 bytes a node (plus a bit for the side of missing values). Both handle missing values:
        see ``fit``. ``"hist"`` is the default because it fitted faster on the
        benchmark datasets at about the same accuracy; see
        ``docs/benchmarks/trees.md``.
    categorical_features : "from_dtype", None, array-like of bool, int or str, default="from_dtype"
        Which columns of X are categorical, as in scikit-learn's
        ``HistGradientBoostingClassifier``: ``"from_dtype"`` takes the pandas
        DataFrame columns of ``category``, string or ``object`` (strings) dtype;
        None none (a DataFrame column of strings is then an error); otherwise a
        boolean mask, integer indices, or column names (with a DataFrame). Each
        categorical column is replaced in place by ordinal codes 0 .. k-1 of the
        categories seen in training (a ``category`` dtype's order is kept,
        other values are sorted); missing values and categories unseen in
        training become NaN, i.e. missing values. The trees split the codes by
        thresholds of the codes or into subsets of categories, as
        ``categorical_splits`` says; ``"hist"`` bins at most 256 categories
        losslessly and quantile-bins the
        codes of a column with more (see ``categorical_splits``). Numeric input
        is unaffected.
    categorical_splits : {"subset", "ordinal"}, default="subset"
        How the binned trees (``tree_method="hist"``) split a categorical
        column. ``"subset"``: into two sets of categories, the best set found
        by sorting the node's categories by their class share (for more than
        two classes, one-vs-rest orderings) or mean target and scanning that
        order, as LightGBM and HistGradientBoosting do; a completely-random or
        extremely-randomised tree draws a random set of the node's categories.
        Missing values, and categories the node did not see, go to the heavier
        child unless the node had missing values, whose side is then learned.
        Columns of more than 255 categories are split as codes. The boosted
        models (``"gbdt"``, ``predictor="xgboost"`` and ``predictor="hgb"``) get
        the same columns as categorical (XGBoost's ``enable_categorical``,
        HistGradientBoosting's ``categorical_features``) and split them into
        subsets too.
        ``"ordinal"``: at thresholds of the ordinal codes. ``tree_method="exact"`` always
        splits the codes at thresholds.
    n_jobs : int or None, default=None
        Parallel forest fits and predictions (joblib threads), at most ``n_jobs`` busy
        threads in all: the models of other libraries inside the cascade (members,
        ``predictor``) run with one OpenMP thread each. Results do not depend on
        it. Under ``joblib.parallel_config(backend="dask")`` the fits and predictions run
        on the Dask cluster instead, with bit-identical results (every seed is drawn
        before dispatch). Changed after fit (``set_params``), it sets the threads of
        the layers' predictions.
    random_state : int, RandomState or None, default=None
    verbose : int, default=0
        1 prints one line per layer, ``[mdDF] layer t`` followed by the layer's
        weights (left out with ``margin_optimization=False``): ``share`` beta_t
        and, with ``cumulative_margin="additive"``, ``alpha`` alpha_t as
        ``alphas_`` keeps it; then the monitored accuracies, the margin ratio
        (``inf (mean margin <= 0)`` when the mean margin is not positive), with
        ``screening_accuracy`` the training rows that went through the layer and
        those it screened, and the seconds the layer took; and, once growth stops, one line with the kept
        layers, ``stop_reason_`` and ``alphas_``. See ``train_history_`` for what
        each value is.
    model_dir : None, "auto", str or path-like, default=None
        Where the fitted models are kept. None: in memory, in ``layers_``.
        A folder (created if it does not exist) or ``"auto"`` (a new temporary
        folder in ``tempfile.gettempdir()``, which ``TMPDIR`` sets): the
        bounded-memory mode, which keeps the fitted layers on disk as DF21's
        ``partial_mode`` does. The worker that fits a forest (or a fold model of
        another member) writes it to the folder as soon as it has given its
        out-of-fold class vectors, and the block keeps a small handle in its
        place, which loads the model (its arrays memory-mapped; the other
        members unpickled) for each prediction, one model per parallel worker at
        a time, and lets it go. Predictions, ``oof_features_``,
        ``train_history_`` and the importances are bit-identical to those of
        the in-memory mode with the same ``random_state``.

        Memory. Without ``model_dir`` the fitted models of every grown layer
        stay in memory. With it, the memory of a fit is that of the data (X, its
        bin codes and the layer input ``[x, f_{t-1}]``), of the class vectors
        (the current layer's out-of-fold class vectors of every member, n rows x
        members x classes in float64, and the out-of-fold features of the grown
        layers, n rows x the passed columns in float32 per layer), and of at
        most ``n_jobs`` forests (one per parallel worker, each of
        ``n_estimators`` trees) being grown, each holding its trees at about
        their stored size and, while they are joined at its end, twice that;
        it no longer grows with the layers, folds and forests kept. Prediction
        holds the rows' class vectors and at most ``n_jobs`` models. The fitted ``predictor`` stays
        in memory.

        Files. The folder holds a marker file ``MDDF_MODEL_DIR.json`` and one
        subfolder per kept layer (``layer-001``, ...) with one file per model;
        the layers grown beyond the kept prefix are deleted at the end of the
        fit. A fit into a folder first deletes the ``layer-NNN`` (and
        ``candidate-NNN``) entries of the previous fit, which it does only
        where the marker is (a folder with such entries and no marker raises a
        ``ValueError`` and is left untouched); it leaves other files alone. A
        folder holds one fitted model: fitting another model into it makes the
        first raise an error at prediction, so give every model its own folder,
        or ``"auto"`` (e.g. under cross-validation, whose clones share the
        parameter). :class:`~mddf.MDDFGridSearch` gives each candidate a
        subfolder ``candidate-NNN`` and keeps only the selected one's. Under a
        Dask backend the workers write the files, so the folder must be on a
        file system they share with the client.

        Pickling. With a folder, the pickle holds handles that name the
        folder's files by absolute path: it is small, and stays valid as long
        as the folder is where it was and has not been fitted into again (a
        missing file raises a ``FileNotFoundError`` naming it, a file written by
        a later fit a :class:`~mddf.ModelFileError`). :meth:`relocate_model_dir` points the
        model at a moved or copied folder; :meth:`to_memory` loads every model
        into memory and detaches the model from its folder. An ``"auto"``
        folder belongs to the model: it is deleted when the model is refitted,
        when the model (and every block of it that is still referenced) is
        garbage-collected, or when the interpreter exits; pickling the model
        (or ``copy.deepcopy``) therefore puts the files into the pickle, as
        large as the model, and unpickling writes them into a new temporary
        folder that belongs to the copy. An ``"auto"`` folder is also removed on
        a SIGTERM during the fit (where SIGTERM has its default action), and, if
        its process was killed, by the next ``"auto"`` fit on the host, with a
        ``UserWarning``.

        Integrity and security. Each file's SHA-256 and size, taken as the fit
        writes it, are kept in the model; the first load of a file in a process
        checks them, and checks that a forest's tree arrays are in range, and a
        file that fails raises a :class:`~mddf.ModelFileError` naming it.
        Loading a model runs code: the members that are not forests are
        unpickled from their files at prediction, so load a pickle or a folder
        only from a trusted source, as with any pickle.

    Attributes
    ----------
    classes_ : ndarray (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X is a DataFrame with string column names.
    is_categorical_ : ndarray of bool ``(n_features_in_,)`` or None
        The categorical columns; None when there is none.
    categories_ : list or None
        Per column, the categories of a categorical column in code order (None
        for a numeric column); None when no column is categorical.
    layers_ : list of ForestBlock
        The kept layers (best prefix): the fitted blocks of forests.
    model_dir_ : str or None
        The folder that holds the fitted models (``model_dir``'s absolute path,
        or the temporary folder of ``"auto"``); None in memory.
    predictor_ : estimator or None
        The fitted ``predictor`` (None without one, or when ``predictor_input="auto"``
        chose the cascade).
    predictor_input_ : {"stacked", "blend", "raw", "cascade"} or None
        What predicts: the ``predictor`` on ``[x, f_T]`` (``"stacked"``), its
        probabilities mixed with the cascade's (``"blend"``), the predictor on
        ``x`` alone (``"raw"``), or none, ``predictor_input="auto"`` found the
        cascade's own prediction better (``"cascade"``). None without a
        ``predictor``.
    predictor_weight_ : float or None
        The predictor's weight w in ``(1 - w) p_cascade + w p_predictor``: 1.0
        for ``"stacked"`` and ``"raw"``, 0.0 for ``"cascade"``. None without a
        ``predictor``.
    predictor_input_scores_ : dict or None
        With ``predictor_input="auto"``, the held-out accuracy of the cascade
        (``"cascade"``, w = 0), of the predictor on ``[x, f_T]`` (``"stacked"``,
        w = 1), of the best mixture (``"blend"``) and of the predictor on ``x``
        (``"raw"``). None otherwise.
    alphas_ : ndarray ``(n_layers_,)``
        Layer weights: Algorithm 2's alpha_t for ``cumulative_margin="additive"``,
        the simplex weights of the final mixture for ``"normalized"``, ones for
        the gcForest cascade.
    screening_thresholds_ : ndarray ``(n_layers_,)`` or None
        With ``screening_accuracy``, each kept layer's confidence threshold: a
        row whose confidence after layer t is at or above ``screening_thresholds_[t - 1]``
        leaves the cascade there (the last one is not applied: every row leaves
        after the last layer). None without screening.
    layer_shares_ : ndarray ``(n_layers_,)``
        beta_t, layer t's share when it joined the normalised mixture
        (``mix_t = (1 - beta_t) mix_{t-1} + beta_t h_t``); the prediction after
        layer t is ``argmax mix_t``.
    n_layers_ : int
    pair_features_ : PairFeatures or None
        The fitted pair search (None without ``pair_features``).
    pair_feature_names_ : ndarray of str or None
        The names of the appended features (``log(a/b)``, ``a*b``, ``a-b``); empty when none helped.
    pair_importances_ : ndarray or None
        Each appended feature's mean share of the kept layers' importances (credited half to each of its two
        columns in ``feature_importances_`` and ``layer_importances_``).
    calibration_ : TemperatureCalibration or None
        The fitted ``temperature`` and ``smoothing``, with the out-of-fold ``log_loss_before`` and
        ``log_loss_after``; None when not applied.
    train_history_ : list of dict, one per grown layer (also the discarded ones)
        Accuracies, margin statistics and the loss are weighted by ``sample_weight``
        and, but for ``val_accuracy``, taken over the training rows (those left for
        training with ``validation_fraction``), from out-of-fold class vectors. The keys:

        - ``layer``: t, 1-based.
        - ``alpha``: the layer's weight when it joined: Algorithm 2's alpha_t with
          ``cumulative_margin="additive"`` (the value ``alphas_`` keeps for a kept
          layer); beta_t with ``"normalized"`` (``alphas_`` then holds the final
          mixture's weights, beta_t times ``1 - beta_l`` of every later kept layer
          l); 1 for the gcForest cascade.
        - ``share``: beta_t, the layer's share of the mixture of layers 1..t (as
          ``layer_shares_``).
        - ``oof_accuracy``: accuracy of the prediction after layer t (the mixture).
        - ``layer_oof_accuracy``: accuracy of layer t's own class vector h_t.
        - ``margin_mean``, ``margin_std``, ``margin_ratio``: mean, standard
          deviation and their ratio (the paper's lambda, std / mean) of the
          normalised cumulative margin ``sum_{l<=t} alpha_l gamma_l / sum_{l<=t}
          alpha_l``, gamma_l being layer l's margins (eq. 46); for the gcForest
          cascade, layer t's margins. ``margin_ratio`` is ``inf`` when
          ``margin_mean <= 0``: the true class does not, on average, beat the
          best other class, and a ratio to a non-positive mean says nothing.
        - ``loss``: mean margin-distribution loss (eq. 48) of the cumulative
          margin of Algorithm 2, line 8 (normalised or not, as
          ``cumulative_margin`` says), from which D_{t+1} follows (eq. 47).
        - ``max_depth``: the depth limit of the layer's trees (None: unbounded).
        - ``model_bytes``: the bytes the layer's fitted models take (``nbytes``
          of its block).
        - ``val_accuracy``: with ``validation_fraction`` only, the accuracy of
          the prediction after layer t on the held-out rows (then the monitored one).
        - ``fit_seconds``: wall-clock seconds the layer took.
        - With ``screening_accuracy`` (``layer_oof_accuracy``, the margin
          statistics and the loss are then over the rows that went through the
          layer; ``oof_accuracy`` over every training row, the screened ones with
          their frozen outputs): ``screening_threshold`` (the layer's threshold),
          ``rows_in`` (training rows that went through the layer), ``screened``
          (those that left after it), ``screened_fraction`` (the share of all
          training rows out of the cascade after the layer) and, with
          ``validation_fraction``, ``val_rows_in`` (held-out rows that went through it).
    oof_features_ : list of ndarray (float32), out-of-fold augmented features
        ``f_t / sum_{l<=t} alpha_l`` of the training rows for each kept layer
        (rows used for training when validation_fraction is set). Their columns,
        as those of :meth:`transform`, are named by :meth:`get_feature_names_out`:
        ``layer<t>_class_<label>`` (the mixture's weight of class ``<label>``, one
        column per entry of ``classes_``), or with ``passed_features="per_forest"``
        ``layer<t>_<member><j>_class_<label>`` for member ``j`` of the block
        (0-based position in ``forest_types``; ``<member>`` is ``rf``, ``crf``,
        ``et``, ``gbdt`` or an estimator's class name in lower case), members
        first, then classes, e.g. ``layer3_rf0_class_1``, ``layer3_rf0_class_2``,
        ``layer3_rf1_class_1``, ...
    stop_reason_ : str
    layer_importances_ : ndarray of shape ``(n_layers_, n_features_in_ + 1)``
        Impurity-based importances of each kept layer: row t gives the share of
        the weighted Gini impurity decrease of layer t's trees (every tree of
        every forest and fold model, each tree's decrease divided by its root's
        weight, as scikit-learn's ``compute_feature_importances(normalize=False)``)
        that went to each raw input feature, and in its last column the share
        that went to the class-vector columns ``f_{t-1}`` (0 for the first layer
        and with ``input_features="raw"``, 1 with ``"stacking"`` after the first
        layer). Each row sums to 1 (a row of zeros if the layer's trees never split).
    feature_importances_ : ndarray of shape ``(n_features_in_,)``
        Importance of each raw input feature: the raw columns of
        ``layer_importances_`` averaged over the kept layers, normalised to sum
        to 1 (zeros if no tree ever split on a raw feature). Every kept layer
        counts equally, rather than by its weight alpha_t in the final
        mixture: a layer also acts through the class vectors it passes on, which
        its successors split on, so its weight in eq. 9 understates its part in
        the prediction (and the gcForest cascade, whose prediction is the last
        layer's alone, would otherwise credit only that layer). The raw-feature
        information that reaches the prediction through class vectors is not
        credited back to the raw features: it is ``class_vector_importance_``.
    class_vector_importance_ : float
        The last column of ``layer_importances_`` averaged over the kept layers:
        the mean share of the trees' impurity decrease that went to class-vector
        columns rather than to raw features.
    """

    # Tag of the verbose lines; errors name ``type(self).__name__``.
    # Tag of the verbose lines; errors name ``type(self).__name__``.
    _log_name = "mdDF"

    _parameter_constraints = {
        **CascadeBase._parameter_constraints,
        "predictor": [None, StrOptions({"xgboost", "hgb", "forest"}), HasMethods(["fit", "predict_proba"])],
        "class_vectors": [StrOptions({"kfold", "oob"})],
        "input_features": [StrOptions({"preconc", "stacking", "raw"})],
        "passed_features": [StrOptions({"mean", "per_forest"})],
        "margin_optimization": ["boolean"],
        "cumulative_margin": [StrOptions({"normalized", "additive"})],
        "margin_mean": [Interval(Real, 0, 1, closed="neither")],
        "margin_tradeoff": [Interval(Real, 0, None, closed="neither")],
        "alpha_solver": [StrOptions({"sgd", "exact"})],
        "weighting": [StrOptions(set(WEIGHTINGS))],
        "tree_method": [StrOptions(set(TREE_METHODS))],
        "screening_accuracy": [Interval(Real, 0, 1, closed="right"), None],
        "calibration": [None, StrOptions({"temperature"})],
    }

    def __init__(
        self,
        *,
        n_estimators=100,
        forest_types=("rf", "rf", "crf", "crf"),
        predictor=None,
        predictor_input="stacked",
        pair_features=None,
        calibration=None,
        n_folds=3,
        fold_trees="all",
        class_vectors="kfold",
        screening_accuracy=None,
        max_depth_factor=16,
        max_layers=20,
        n_tolerant_layers=2,
        tol=0.0,
        min_error_reduction=0.005,
        min_gain_se=0.0,
        validation_fraction=None,
        input_features="preconc",
        passed_features="mean",
        margin_optimization=True,
        cumulative_margin="normalized",
        margin_mean=0.8,
        margin_tradeoff=0.05,
        alpha_solver="sgd",
        weighting="resample",
        tree_method="hist",
        categorical_features="from_dtype",
        categorical_splits="subset",
        n_jobs=None,
        random_state=None,
        verbose=0,
        model_dir=None,
    ):
        self.n_estimators = n_estimators
        self.forest_types = forest_types
        self.predictor = predictor
        self.predictor_input = predictor_input
        self.pair_features = pair_features
        self.calibration = calibration
        self.n_folds = n_folds
        self.fold_trees = fold_trees
        self.class_vectors = class_vectors
        self.screening_accuracy = screening_accuracy
        self.max_depth_factor = max_depth_factor
        self.max_layers = max_layers
        self.n_tolerant_layers = n_tolerant_layers
        self.tol = tol
        self.min_error_reduction = min_error_reduction
        self.min_gain_se = min_gain_se
        self.validation_fraction = validation_fraction
        self.input_features = input_features
        self.passed_features = passed_features
        self.margin_optimization = margin_optimization
        self.cumulative_margin = cumulative_margin
        self.margin_mean = margin_mean
        self.margin_tradeoff = margin_tradeoff
        self.alpha_solver = alpha_solver
        self.weighting = weighting
        self.tree_method = tree_method
        self.categorical_features = categorical_features
        self.categorical_splits = categorical_splits
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.model_dir = model_dir

    def _policy(self):
        return MarginPolicy(self, log_name=self._log_name)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Grow the cascade (Algorithm 2) and keep its best prefix.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            NaN marks a missing value; infinite values are rejected. With
            ``tree_method="hist"`` missing values get a bin of their own and
            every best split chooses the side they go to (the better of the two
            by the Gini criterion), every completely-random split draws it; a
            missing value met at prediction in a node that saw none goes to the
            child of larger training weight (see :mod:`mddf.trees`). With
            ``"exact"``, scikit-learn's trees handle them alike. Class vectors
            never hold NaN.
            Categorical columns are ordinal-encoded (see ``categorical_features``);
            categories unseen at training are missing values.
        y : array-like of shape (n_samples,)
            Class labels (any hashable values, at least two classes).
        sample_weight : array-like of shape (n_samples,), float or None, default=None
            Non-negative, finite weights with at least one positive entry; None
            weighs every row alike. The first distribution is ``D_1
            proportional to w`` instead of uniform, and every later one keeps
            the factor, ``D_{t+1}(i) proportional to w_i l_md(F_t(i))`` (eq. 47),
            whichever ``weighting`` carries D_t to the forests (with
            ``class_vectors="oob"`` too). The mean loss of eq. 48 that fixes alpha_t
            (line 6; ``alpha_solver="sgd"`` weights each mini-batch gradient, see
            :func:`mddf.solve_alpha_sgd`), the monitored accuracy of early
            stopping (out-of-fold, or held-out with ``validation_fraction``), and
            the margin statistics and loss of ``train_history_`` are weighted
            means. Integer weights thus act as repeated rows, except for what is
            drawn at random (the folds are drawn over rows, whatever their
            weights; resamples draw a row with probability proportional to its
            weight). Rows of weight 0 never reach the forests and count in no
            accuracy or margin, but still get out-of-fold class vectors. With
            ``weighting="sample_weight"`` or ``class_vectors="oob"`` the weights
            (as D_t) reach the trees as sample weights, which move their splits
            but not the class shares of pure leaves, so on deep trees they shift
            the predictions less than the resampling modes do. With
            ``margin_optimization=False`` (gcForest) D_t stays proportional to w.
            With ``validation_fraction`` the weights follow their rows into the
            training and held-out parts, and each part needs a positive weight.

        Returns
        -------
        self
        """
        return self._fit_in_store(X, y, sample_weight)

    # ------------------------------------------------------------------ predict
    def staged_predict_proba(self, X):
        """Class probabilities after each kept layer (``f_t / sum_{l<=t} alpha_l``), the cascade's own mixtures.

        Yields
        ------
        ndarray of shape (n_samples, n_classes); the last equals :meth:`predict_proba` without a ``predictor`` and
        without ``calibration``.
        """
        return (proba for _, proba in self._staged(X))

    def staged_predict(self, X):
        """Predicted labels after each kept layer (the cascade's own, with or without a ``predictor``)."""
        return (self.classes_[proba.argmax(axis=1)] for proba in self.staged_predict_proba(X))

    def predict_proba(self, X):
        """Class probabilities ``f_T(x) / sum_t alpha_t``: a convex combination of the layers' class vectors (eq. 9),
        calibrated by ``calibration_`` when there is one.

        With a ``predictor``, its probabilities for ``[x, f_T(x)]`` (or ``x``) instead, or, when
        ``predictor_weight_`` w is below 1, ``(1 - w)`` times the cascade's plus w times the predictor's.
        """
        if self._uses_predictor():
            return self._predicted(X)
        proba = None
        for stage in self.staged_predict_proba(X):
            proba = stage
        calibration = getattr(self, "calibration_", None)  # models stored before calibration: none
        return proba if calibration is None else calibration.apply(proba)

    def predict(self, X):
        """``argmax_j f_T^j(x)`` (eq. 9), or the most probable class of :meth:`predict_proba` with a ``predictor``."""
        proba = self.predict_proba(X)  # checks fitted-ness before classes_ is read
        return self.classes_[proba.argmax(axis=1)]

    def _layer_feature_names(self, layer=None):
        """``layer<t>_class_<label>``, or ``layer<t>_<member><j>_class_<label>`` per member with ``"per_forest"``."""
        t = self._check_layer(layer)
        classes = [f"class_{label}" for label in self.classes_]
        if self.passed_features == "mean":
            return [f"layer{t}_{c}" for c in classes]
        members = [f"{member_name(kind)}{j}" for j, kind in enumerate(self.layers_[t - 1].forest_types)]
        return [f"layer{t}_{m}_{c}" for m in members for c in classes]
