;;; conn-issue43.el --- Questions name their task; "Delegate task" and the jobs list  -*- lexical-binding: t; -*-

;; conn.el loads this file and calls `test-conn-issue43'.
;; 1. Two tasks run; the OLDER one asks (it writes a protected file) while
;;    the newer one, which last read that same file, waits on the model.
;;    The server names the asking task (taskId); the old guess (the task
;;    whose last tool call the question names, newest first) picked the
;;    newer one.
;; 2. `agentls-delegate' sends agentls.delegate with the task and says the
;;    server's answer: here a refusal (nothing pushed, no NATS server).
;; 3. `agentls-jobs' says what agentls.jobs answers: here its error; with
;;    a list (the server's answer replayed to the package's code), each
;;    job's id, state and task, and a finished one picked is fetched
;;    (agentls.jobFetch) into the worktree actions.

;;; Code:

(defun test-conn-question-names-task ()
  (with-temp-file (expand-file-name "q2.code-workspace" test-ws) (insert "marker-q2\n"))
  (setq test-messages nil)
  (advice-add 'message :before #'test-record-message)
  (unwind-protect
      (let ((agentls-display-stream nil)
            (hello (find-file-noselect (expand-file-name "hello.txt" test-ws)))
            during older newer)
        (test-i36-away)
        (cl-letf (((symbol-function 'completing-read)
                   (lambda (&rest _)
                     (setq during (mapcar #'car agentls--asking))
                     "Allow this change")))
          (with-current-buffer hello
            (setq older (agentls-run "Ask older: write q2.code-workspace")
                  newer (agentls-run "Ask newer: read q2.code-workspace")))
          (test-wait-end older 20)
          (test-wait-end newer 20))
        (let ((named (test-i36-said 0 (format "agentls: %s needs you: " older)))
              (wrong (test-i36-said 0 (format "agentls: %s needs you: " newer))))
          (test-check "a question names the task that asks (server taskId), not the newest running one"
                      (and (equal (plist-get (test-task older) :status) "ok")
                           (equal (plist-get (test-task newer) :status) "ok")
                           (= (length named) 1) (null wrong) (equal during (list older)))
                      (format "older %S newer %S waiting %S\n%S" older newer during test-messages))))
    (advice-remove 'message #'test-record-message)))

(defun test-conn-delegate ()
  (setq test-messages nil)
  (advice-add 'message :before #'test-record-message)
  (let (sent res)
    (unwind-protect
        (cl-letf* ((orig (symbol-function 'agentls-command))
                   ((symbol-function 'agentls-command)
                    (lambda (command &optional args)
                      (when (equal command "agentls.delegate") (setq sent args))
                      (funcall orig command args))))
          (setq res (cl-letf (((symbol-function 'read-string) (lambda (&rest _) "Delegated: add a changelog entry")))
                      (call-interactively #'agentls-delegate))))
      (advice-remove 'message #'test-record-message))
    (test-check "agentls-delegate sends agentls.delegate with the task and says the server's refusal"
                (and (null res) (equal (plist-get sent :task) "Delegated: add a changelog entry")
                     (cl-some (lambda (m) (string-prefix-p "agentls: not delegated: agentls.delegate: " m)) test-messages))
                (format "sent %S answer %S\n%S" sent res test-messages)))

  ;; agentls-jobs with no NATS server: the server's error, said.
  (let ((direct (condition-case err (progn (agentls-command "agentls.jobs") nil)
                  (jsonrpc-error (alist-get 'jsonrpc-error-message (cdr err))))))
    (setq test-messages nil)
    (advice-add 'message :before #'test-record-message)
    (unwind-protect (call-interactively #'agentls-jobs)
      (advice-remove 'message #'test-record-message))
    (test-check "agentls-jobs says what agentls.jobs answers (here its error: no NATS server)"
                (and direct (string-search "delegate.url" direct)
                     (member (concat "agentls: jobs: " direct) test-messages))
                (format "%S\n%S" direct test-messages)))

  ;; A list as agentls.jobs answers it, replayed to the package.
  (let* ((list (list :jobs (vector (list :id "j20261128-1" :state "done" :repo "file:///r" :commit "abc"
                                         :task "add a changelog entry" :worker "w1" :attempt 1 :result (list :status "ok"))
                                   (list :id "j20261128-2" :state "running" :repo "file:///r" :commit "abc"
                                         :task "fix the typo" :worker "w2" :attempt 1)
                                   (list :id "j20261128-3" :state "failed" :repo "file:///r" :commit "abc"
                                         :task "rename x" :attempt 3 :reason "the clone failed"))))
         (calls nil) (labels nil) (prompts nil) (pick "j20261128-2"))
    (setq test-messages nil)
    (advice-add 'message :before #'test-record-message)
    (unwind-protect
        (cl-letf (((symbol-function 'agentls-command)
                   (lambda (command &optional args)
                     (push (format "%s %s" command (or (plist-get args :id) "")) calls)
                     (pcase command
                       ("agentls.jobs" list)
                       ("agentls.jobFetch" (list :worktree "j20261128-1" :path test-ws :state "done" :result (list :status "ok")))
                       ("agentls.worktreeReview" (list :taskId "j20261128-1"))
                       (_ nil))))
                  ((symbol-function 'completing-read)
                   (lambda (prompt coll &rest _)
                     (push prompt prompts)
                     (let ((cands (all-completions "" coll)))
                       (if (string-prefix-p "agentls: delegated jobs" prompt)
                           (progn (setq labels cands)
                                  (cl-find-if (lambda (c) (string-prefix-p pick c)) cands))
                         "review")))))
          (call-interactively #'agentls-jobs)
          (setq pick "j20261128-1")
          (call-interactively #'agentls-jobs))
      (advice-remove 'message #'test-record-message))
    (setq calls (cl-remove-if (lambda (c) (string-prefix-p "agentls.proposal" c)) (reverse calls)))
    (test-check "agentls-jobs lists each job with its state; a running one stays, a done one is fetched into review"
                (and (= (length labels) 3)
                     (string-match-p "\\`j20261128-1  done .*add a changelog entry.*(ok)" (nth 0 labels))
                     (string-match-p "\\`j20261128-2  running .*fix the typo" (nth 1 labels))
                     (string-match-p "\\`j20261128-3  failed .*the clone failed" (nth 2 labels))
                     (cl-some (lambda (m) (string-prefix-p "agentls: job j20261128-2 is running" m)) test-messages)
                     (equal calls '("agentls.jobs " "agentls.jobs " "agentls.jobFetch j20261128-1"
                                    "agentls.worktreeReview j20261128-1")))
                (format "labels %S calls %S prompts %S\n%S" labels calls prompts test-messages))))

(defun test-conn-issue43 ()
  (test-conn-question-names-task)
  (test-conn-delegate))

;;; conn-issue43.el ends here
