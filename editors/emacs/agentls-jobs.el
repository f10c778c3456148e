;;; agentls-jobs.el --- Delegate a task to a worker elsewhere; delegated jobs  -*- lexical-binding: t; -*-

;; Version: 0.1
;; Package-Requires: ((emacs "28.1"))

;;; Commentary:

;; "Delegate task" (docs/multi-machine.md): `agentls-delegate' publishes a
;; job for the workspace's repository at its pushed commit, for an
;; `agentls worker' on another machine (agentls.delegate), or says why the
;; server refused (the commit is not pushed, no delegate.url is set).
;; `agentls-jobs' lists the delegated jobs with their state (agentls.jobs);
;; picking a finished one brings its change back (agentls.jobFetch) as a
;; worktree task, then offers what `agentls-worktrees' does with one:
;; review it hunk by hunk, merge it, or discard it.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'jsonrpc)

(declare-function agentls-command "agentls")
(declare-function agentls--in-order "agentls")
(declare-function agentls--changed "agentls")
(declare-function agentls-worktree-act "agentls-worktrees")

(defun agentls-jobs--error (err)
  "The server's message in jsonrpc error ERR."
  (or (alist-get 'jsonrpc-error-message (cdr err)) (error-message-string err)))

(defun agentls-jobs--label (job)
  "JOB (a plist from agentls.jobs) as the list shows it: id, state, task,
worker, and how it ended or why it failed."
  (let ((state (or (plist-get job :state) ""))
        (result (plist-get job :result))
        (worker (plist-get job :worker))
        (reason (plist-get job :reason)))
    (format "%s  %-7s  %s%s%s" (or (plist-get job :id) "?") state
            (truncate-string-to-width (replace-regexp-in-string "[ \t\n]+" " " (or (plist-get job :task) "")) 60 nil nil "…")
            (if (and (stringp worker) (not (string-empty-p worker))) (concat "  on " worker) "")
            (cond ((and (equal state "failed") (stringp reason) (not (string-empty-p reason)))
                   (format "  (%s)" (truncate-string-to-width (replace-regexp-in-string "[ \t\n]+" " " reason) 60 nil nil "…")))
                  ((and (listp result) (plist-get result :status)) (format "  (%s)" (plist-get result :status)))
                  (t "")))))

(defun agentls-jobs--fetchable-p (job)
  "Non-nil when JOB's change can come back: it ended with a result."
  (or (equal (plist-get job :state) "done")
      (and (equal (plist-get job :state) "failed") (plist-get job :result))))

;;;###autoload
(defun agentls-delegate (task)
  "Delegate TASK: a job for the workspace's repository at its pushed
commit, run by an `agentls worker' elsewhere.  When it is done its
change comes back as a worktree task (see `agentls-jobs').  A refusal
\(the commit is on no remote-tracking branch, no delegate.url is set) is
said.  Returns the server's answer, or nil when refused."
  (interactive (list (read-string "agentls: delegate which task? ")))
  (when (string-empty-p (string-trim task))
    (user-error "agentls: no task to delegate"))
  (condition-case err
      (let ((res (agentls-command "agentls.delegate" (list :task task))))
        (message "agentls: delegated job %s (%s at %s); agentls-jobs lists it, and its change comes back as a worktree task when it is done"
                 (plist-get res :job) (plist-get res :repo)
                 (let ((c (or (plist-get res :commit) ""))) (substring c 0 (min 12 (length c)))))
        res)
    (jsonrpc-error
     (message "agentls: not delegated: %s" (agentls-jobs--error err))
     nil)))

(defun agentls-job-fetch (id &optional action)
  "Bring delegated job ID's change back as a worktree task, then do
ACTION with it (\"review\", \"merge\", \"discard\", …; asked when nil,
as in `agentls-worktrees').  Returns the answer to ACTION."
  (interactive (list (read-string "agentls: fetch which job? ")))
  (let* ((res (agentls-command "agentls.jobFetch" (list :id id)))
         (w (list :id (plist-get res :worktree) :taskId (plist-get res :worktree) :path (plist-get res :path))))
    (when (fboundp 'agentls--changed) (agentls--changed))
    (message "agentls: job %s came back as worktree task %s" id (plist-get res :worktree))
    (agentls-worktree-act
     (or action (completing-read (format "agentls: job %s (%s): " id (or (plist-get res :state) ""))
                                 '("review" "merge" "continue" "open" "discard") nil t))
     w)))

;;;###autoload
(defun agentls-jobs ()
  "List the delegated jobs with their state; a finished one picked comes
back as a worktree task, for review, merge or discard.  Returns the job
picked, or the server's error as a message."
  (interactive)
  (let ((list (condition-case err
                  (append (plist-get (agentls-command "agentls.jobs") :jobs) nil)
                (jsonrpc-error
                 (message "agentls: jobs: %s" (agentls-jobs--error err))
                 :error))))
    (cond
     ((eq list :error) nil)
     ((null list) (message "agentls: no delegated jobs (agentls-delegate delegates one)") nil)
     (t
      (let* ((labels (mapcar (lambda (j) (cons (agentls-jobs--label j) j)) list))
             (job (cdr (assoc (completing-read "agentls: delegated jobs: " (agentls--in-order labels) nil t) labels))))
        (cond ((null job) nil)
              ((agentls-jobs--fetchable-p job) (agentls-job-fetch (plist-get job :id)) job)
              (t (message "agentls: job %s is %s; its change can come back once it is done%s"
                          (plist-get job :id) (plist-get job :state)
                          (let ((r (plist-get job :reason))) (if (and (stringp r) (not (string-empty-p r))) (concat ": " r) "")))
                 job)))))))

(provide 'agentls-jobs)
;;; agentls-jobs.el ends here
