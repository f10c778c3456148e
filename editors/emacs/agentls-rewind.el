;;; agentls-rewind.el --- Rewind a task's session to a step  -*- lexical-binding: t; -*-

;; Version: 0.1
;; Package-Requires: ((emacs "28.1"))

;;; Commentary:

;; `agentls-rewind': pick a step of a task's session (every model turn
;; that changed files; 0 is before the first) with `completing-read' and
;; rewind to it through agentls.rewind.  The files go back to that step,
;; keeping what you typed since; the conversation is cut there, so
;; `agentls-continue' goes on from it.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'jsonrpc)

(declare-function agentls-command "agentls")
(declare-function agentls--latest "agentls")

(defun agentls-rewind--label (step)
  "STEP (a plist from agentls.checkpoints) as the picker shows it."
  (if (eql (plist-get step :step) 0)
      "0  before the first step"
    (format "%d  %s · %s · %s" (plist-get step :step) (or (plist-get step :taskId) "")
            (or (plist-get step :summary) "")
            (mapconcat #'identity (append (plist-get step :files) nil) ", "))))

(defun agentls-rewind--text (res)
  "What agentls.rewind answered (RES), as a sentence."
  (cond ((not (eq (plist-get res :applied) t))
         (format "agentls: did not rewind: %s" (or (plist-get res :reason) "no answer")))
        ((> (length (plist-get res :conflicts)) 0)
         (format "agentls: rewound session %s to step %d; %d places you edited since were left alone"
                 (plist-get res :session) (plist-get res :step) (length (plist-get res :conflicts))))
        (t (format "agentls: rewound session %s to step %d" (plist-get res :session) (plist-get res :step)))))

;;;###autoload
(defun agentls-rewind (&optional task-id step)
  "Rewind the session of TASK-ID (default: the newest task) to STEP.
Without STEP, ask which step: the session's steps with their summaries.
Returns the server's answer."
  (interactive)
  (let* ((id (or task-id
                 (agentls--latest (lambda (tk) (not (member (plist-get tk :status) '("running" "queued")))))
                 (user-error "agentls: no task to rewind")))
         (step (or step
                   (let* ((res (agentls-command "agentls.checkpoints" (list :taskId id)))
                          (steps (append (plist-get res :steps) nil))
                          (labels (mapcar (lambda (s) (cons (agentls-rewind--label s) s))
                                          (cons (list :step 0) steps))))
                     (unless steps (user-error "agentls: this session has no steps (no task of it changed files)"))
                     (plist-get (cdr (assoc (completing-read "agentls: rewind to which step? " labels nil t) labels))
                                :step))))
         (res (condition-case err
                  (agentls-command "agentls.rewind" (list :taskId id :step step))
                (jsonrpc-error (list :applied :json-false
                                     :reason (or (alist-get 'jsonrpc-error-message (cdr err)) "no answer"))))))
    (message "%s" (agentls-rewind--text res))
    res))

(provide 'agentls-rewind)
;;; agentls-rewind.el ends here
