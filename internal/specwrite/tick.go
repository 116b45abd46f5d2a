package specwrite

import "github.com/specstack/specstack/spec"

// Tick is `jj openspec tasks check|uncheck CHANGE ID...` under the
// project lock: it sets the tasks' boxes (checked) and returns the files
// written and the change's progress after.
func Tick(r spec.Root, change string, ids []string, checked bool) (written []string, progress spec.TaskProgress, err error) {
	lock, _, err := lockProject(r)
	if err != nil {
		return nil, progress, err
	}
	defer lock.Release()
	written, err = r.Tick(change, ids, checked)
	if err != nil {
		return nil, progress, Classify(err)
	}
	tf, _, err := r.Tasks(change)
	if err != nil {
		return nil, progress, Classify(err)
	}
	return written, tf.Progress(), nil
}
