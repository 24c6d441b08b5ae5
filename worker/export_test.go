package worker

// For TestCutOffWorkerHoldsWhatItGivesBack: how long a cut-off worker
// holds a task before it gives it back.
const GiveBackAfter = giveBackAfter
