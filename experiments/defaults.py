"""The runners' names and default settings, importing nothing: the command line's parsers show them without loading
the modules that use them, which load scikit-learn."""

#: The evaluation protocols of the runners (``--protocol``).
PROTOCOLS = ("practitioner", "paper")
#: The practitioner protocol's baseline method, always run (the majority class, or the mean).
BASELINE = "Baseline"
#: Folds of the practitioner's cross-validation unless ``--folds`` says otherwise.
DEFAULT_FOLDS = 5
#: Seeds (repetitions of the k-fold cut) unless ``--seeds`` says otherwise.
DEFAULT_SEEDS = (0, 1)
#: The small-sample study's methods under the paper's protocol unless ``--methods`` says otherwise.
SMALL_SAMPLE_PAPER_METHODS = ("RF", "XGBoost", "gcForest", "mdDF")
#: The studies' dataset (the mdDF paper's Figures 6-9 use UCI HAR), the one used when its files are missing, and
#: the one of ``--quick`` (bundled with scikit-learn: it needs no files).
PAPER_DEFAULT_DATASET = "har"
FALLBACK_DATASET = "satimage"
QUICK_DATASET = "digits"
#: ``--task``'s values: :data:`mddf.datasets.user_data.TASKS`, which a test keeps equal to this copy (that module
#: loads scikit-learn, being part of :mod:`mddf.datasets`).
USER_DATA_TASKS = ("auto", "classification", "regression")
