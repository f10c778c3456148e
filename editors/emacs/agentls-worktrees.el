;;; agentls-worktrees.el --- Worktree tasks: list, merge, review, discard  -*- lexical-binding: t; -*-

;; Version: 0.1
;; Package-Requires: ((emacs "28.1"))

;;; Commentary:

;; `agentls-worktrees': the workspace's worktree tasks (agent.isolation
;; "worktree": each works in a git worktree of its own) with their state,
;; picked with `completing-read', then merged (every hunk you have not
;; edited over; the others stay proposed as diagnostics), reviewed hunk by
;; hunk (code actions, `agentls-accept'), continued (a follow-up in the
;; same worktree), opened (its directory in dired) or discarded (the
;; worktree and its branch removed).

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'jsonrpc)

(declare-function agentls-command "agentls")
(declare-function agentls--in-order "agentls")
(declare-function agentls--changed "agentls")

(defun agentls-worktrees--name (w)
  "How worktree W is called: its task's short id (t15), else its own."
  (let ((tid (plist-get w :taskId)))
    (if (and (stringp tid) (not (string-empty-p tid))) tid (plist-get w :id))))

(defun agentls-worktrees--label (w)
  "Worktree W (a plist from agentls.worktrees) as the picker shows it."
  (let ((pending (append (plist-get w :pending) nil)))
    (format "%s  %s  %s%s" (agentls-worktrees--name w) (or (plist-get w :state) "")
            (truncate-string-to-width (replace-regexp-in-string "[ \t\n]+" " " (or (plist-get w :task) "")) 60)
            (if pending (concat " · waiting: " (mapconcat #'identity pending ", ")) ""))))

(defun agentls-worktrees--text (action res)
  "What the server answered (RES) to ACTION, as a sentence."
  (pcase action
    ("merge" (let ((n (length (plist-get res :conflicts))))
               (if (> n 0)
                   (format "agentls: merged %d hunk(s) of %s; %d conflict(s) over your edits stay proposed (see the diagnostics)"
                           (or (plist-get res :merged) 0) (plist-get res :id) n)
                 (format "agentls: merged %d hunk(s) of %s" (or (plist-get res :merged) 0) (plist-get res :id)))))
    ("review" (format "agentls: worktree task %s is up for review: code actions on its diagnostics, or agentls-accept"
                      (plist-get res :taskId)))
    ("discard" (format "agentls: discarded worktree %s" (plist-get res :id)))
    ("continue" (format "agentls: task %s continues in worktree %s" (plist-get res :taskId) (plist-get res :session)))
    (_ "")))

(defun agentls-worktree-act (action w &optional task)
  "Run ACTION (\"merge\", \"review\", \"continue\", \"open\" or \"discard\") on worktree W.
\"continue\" runs TASK (asked when nil) as a follow-up in the worktree.
Returns the server's answer (the directory's buffer for \"open\")."
  (cond
   ((equal action "open") (dired (plist-get w :path)))
   ((equal action "continue")
    (let* ((text (or task (read-string (format "agentls: follow-up in %s: " (plist-get w :id)))))
           (res (agentls-command "agentls.worktreeContinue" (list :id (plist-get w :id) :task text))))
      (message "%s" (agentls-worktrees--text action res))
      res))
   (t
    (let* ((cmd (pcase action
                  ("merge" "agentls.worktreeMerge")
                  ("review" "agentls.worktreeReview")
                  ("discard" "agentls.worktreeDiscard")
                  (_ (user-error "agentls: unknown action %s (merge, review, continue, open, discard)" action))))
           (res (when (or (not (equal action "discard"))
                          ;; Discarding throws the task's work away: asked first.
                          (yes-or-no-p (format "agentls: discard worktree %s%s? "
                                               (agentls-worktrees--name w)
                                               (let ((p (append (plist-get w :pending) nil)))
                                                 (if p (format " (its change to %s is lost)" (string-join p ", ")) "")))))
                  (agentls-command cmd (list :id (plist-get w :id))))))
      (when res
        (message "%s" (agentls-worktrees--text action res))
        (when (fboundp 'agentls--changed) (agentls--changed)))
      res))))

;;;###autoload
(defun agentls-worktrees ()
  "Pick one of the workspace's worktree tasks, then what to do with it.
Returns the server's answer to that."
  (interactive)
  (let* ((list (sort (append (plist-get (agentls-command "agentls.worktrees") :worktrees) nil)
                     ;; Newest first.
                     (lambda (a b) (string> (or (plist-get a :created) "") (or (plist-get b :created) "")))))
         (labels (mapcar (lambda (w) (cons (agentls-worktrees--label w) w)) list)))
    (unless list (user-error "agentls: no worktree tasks in this workspace (run one with agent.isolation \"worktree\")"))
    (let* ((w (cdr (assoc (completing-read "agentls: which worktree? " (agentls--in-order labels) nil t) labels)))
           (action (completing-read (format "agentls: %s: " (agentls-worktrees--name w)) '("merge" "review" "continue" "open" "discard") nil t)))
      (agentls-worktree-act action w))))

(provide 'agentls-worktrees)
;;; agentls-worktrees.el ends here
