;;; agentls.el --- Run the agentls coding agent through Eglot  -*- lexical-binding: t; -*-

;; Version: 0.1
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: tools, languages

;;; Commentary:

;; agentls is a language server that runs a coding agent.  Eglot already
;; applies its edits (workspace/applyEdit), shows its diagnostics and
;; offers its code actions; this file adds what Eglot cannot know:
;;
;;  - `agentls-run', `agentls-cancel', `agentls-status', `agentls-accept',
;;    `agentls-reject' and `agentls-undo', which call the server's
;;    workspace/executeCommand commands;
;;  - a *agentls* buffer that renders the agentls/event stream live
;;    (model text, tool calls and results, checks, token usage);
;;  - `agentls-mode-line', the running task's progress for the mode line.
;;
;; Set-up (see README.md):
;;
;;   (require 'agentls)
;;   (agentls-eglot-setup '(python-mode go-mode text-mode))
;;   ;; then M-x eglot in a buffer of one of those modes.
;;
;; Eglot gives a buffer one server, so in those modes agentls takes the
;; place of the language's own server.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'eglot)
(require 'jsonrpc)

(defgroup agentls nil
  "The agentls coding agent, through Eglot."
  :group 'tools
  :prefix "agentls-")

(defcustom agentls-program '("agentls" "serve")
  "The agentls server command and its arguments."
  :type '(repeat string))

(defcustom agentls-initialization-options nil
  "Plist sent as initializationOptions, e.g.
\\='(:llm (:model \"gpt-4.1\") :verify (:enabled t)).  nil sends {}."
  :type 'sexp)

(defcustom agentls-display-stream t
  "Non-nil: show the *agentls* buffer when a task starts."
  :type 'boolean)

(defcustom agentls-flush-changes t
  "Non-nil: send pending buffer changes before every agentls command.
Eglot 1.9 sends didChange only after `eglot-send-changes-idle-time'
and not before `workspace/executeCommand', so without this the agent
may read a buffer as it was half a second ago."
  :type 'boolean)

(defclass agentls-server (eglot-lsp-server) ()
  :documentation "An Eglot connection to agentls.")

;;;###autoload
(defun agentls-eglot-setup (modes)
  "Make Eglot use agentls for the major modes MODES (a list of symbols)."
  (let ((contact (append (list 'agentls-server)
                         agentls-program
                         (list :initializationOptions
                               (lambda (_server)
                                 (or agentls-initialization-options
                                     (make-hash-table)))))))
    (setq eglot-server-programs
          (cons (cons modes contact)
                (cl-remove-if (lambda (e) (and (consp (cdr e)) (eq (cadr e) 'agentls-server)))
                              eglot-server-programs)))))

;;; Task bookkeeping

(defvar agentls--tasks nil
  "Alist of (TASK-ID . PLIST), newest first: :task :status :state :message
:review :result.")

(defvar agentls--progress nil
  "The current progress text of the newest running task, or nil.")

(defun agentls--task (id)
  (or (cdr (assoc id agentls--tasks))
      (let ((p (list :status "queued")))
        (push (cons id p) agentls--tasks)
        p)))

(defun agentls--put (id key value)
  (let ((cell (or (assoc id agentls--tasks)
                  (progn (agentls--task id) (assoc id agentls--tasks)))))
    (setcdr cell (plist-put (cdr cell) key value))))

(defun agentls--running-p (plist)
  (member (plist-get plist :status) '("queued" "running")))

(defun agentls--latest (&optional pred)
  "The id of the newest task whose plist satisfies PRED."
  (car (cl-find-if (lambda (cell) (or (null pred) (funcall pred (cdr cell))))
                   agentls--tasks)))

(defun agentls-tasks ()
  "The tasks this Emacs started or heard of, oldest first: (ID . PLIST)."
  (reverse agentls--tasks))

(defun agentls-mode-line ()
  "Progress text for the mode line: \"agentls t2: read_file a.go\" or \"\".
Use it as (:eval (agentls-mode-line)) in `mode-line-format' or
`global-mode-string'."
  (let ((id (agentls--latest #'agentls--running-p)))
    (if (not id)
        ""
      (let ((p (cdr (assoc id agentls--tasks))))
        (format "agentls %s: %s" id
                (or agentls--progress (plist-get p :message)
                    (plist-get p :state) (plist-get p :status)))))))

;;; The stream buffer

(defvar agentls--text-open nil
  "Non-nil while the last line of *agentls* is model text still streaming.")

(define-derived-mode agentls-stream-mode special-mode "agentls"
  "Major mode of the *agentls* event stream buffer."
  (setq-local truncate-lines nil))

(defun agentls-stream-buffer ()
  "The *agentls* buffer, created on first use."
  (or (get-buffer "*agentls*")
      (with-current-buffer (get-buffer-create "*agentls*")
        (agentls-stream-mode)
        (setq agentls--text-open nil)
        (current-buffer))))

(defun agentls--insert (text &optional streaming)
  "Append TEXT to *agentls*.  STREAMING: continue the open text line."
  (with-current-buffer (agentls-stream-buffer)
    (let ((inhibit-read-only t)
          (at-end (mapcar (lambda (w) (cons w (= (window-point w) (point-max))))
                          (get-buffer-window-list (current-buffer) nil t))))
      (save-excursion
        (goto-char (point-max))
        (when (and (not (and streaming agentls--text-open))
                   (not (bolp)))
          (insert "\n"))
        (insert text)
        (unless streaming (insert "\n")))
      (setq agentls--text-open streaming)
      (dolist (w at-end)
        (when (cdr w) (set-window-point (car w) (point-max)))))))

(defun agentls--line (fmt &rest args)
  (agentls--insert (apply #'format fmt args)))

(defun agentls--tool (call)
  "Render a tool CALL plist as \"name path\"."
  (let* ((name (or (plist-get call :name) "?"))
         (args (ignore-errors
                 (json-parse-string (or (plist-get call :arguments) "")
                                    :object-type 'plist)))
         (what (cl-some (lambda (k)
                          (let ((v (plist-get args k)))
                            (and (stringp v) (not (string-empty-p v)) v)))
                        '(:path :pattern :command))))
    (if what (format "%s %s" name what) name)))

(defun agentls--usage (u)
  (format "%s in / %s out" (or (plist-get u :inputTokens) 0)
          (or (plist-get u :outputTokens) 0)))

(defun agentls--first-line (s n)
  (let ((l (car (split-string (string-trim (or s "")) "\n"))))
    (if (> (length l) n) (concat (substring l 0 n) "…") (or l ""))))

(defun agentls--render (ev)
  "Render one agentls/event plist EV into *agentls*."
  (let ((id (plist-get ev :taskId))
        (kind (plist-get ev :kind)))
    (pcase kind
      ("text" (agentls--insert (or (plist-get ev :text) "") t))
      ("state"
       (when (member (plist-get ev :to) '("planning" "verifying" "reporting"))
         (agentls--line "· %s %s" id (plist-get ev :to))))
      ("toolCall" (agentls--line "→ %s" (agentls--tool (plist-get ev :call))))
      ("toolResult"
       (let ((name (plist-get (plist-get ev :call) :name))
             (out (or (plist-get ev :output) "")))
         (if (eq (plist-get ev :isError) t)
             (agentls--line "← %s failed: %s" name (agentls--first-line out 200))
           (let ((n (+ (cl-count ?\n out)
                       (if (and (> (length out) 0)
                                (not (string-suffix-p "\n" out)))
                           1 0))))
             (agentls--line "← %s ok (%d line%s)" name n (if (= n 1) "" "s"))))))
      ("verify"
       (let ((v (plist-get ev :verify)))
         (agentls--line "%s checks %s: %s"
                        (if (eq (plist-get v :passed) t) "✓" "✗")
                        (if (eq (plist-get v :passed) t) "passed" "failed")
                        (or (plist-get v :summary) ""))))
      ("usage"
       (agentls--line "· tokens %s%s" (agentls--usage (plist-get ev :usage))
                      (if (plist-get ev :taskUsage)
                          (format " (task %s)" (agentls--usage (plist-get ev :taskUsage)))
                        "")))
      ((or "retry" "compaction")
       (agentls--line "· %s: %s" kind (or (plist-get ev :text) "")))
      ("end"
       (let* ((r (plist-get ev :result))
              (files (append (plist-get r :filesChanged) nil)))
         (agentls--line "■ %s %s: %s" id (plist-get r :status)
                        (agentls--first-line
                         (if (eq (plist-get r :cancelled) t) "cancelled"
                           (or (plist-get r :summary) (plist-get r :error) ""))
                         300))
         (when files
           (agentls--line "  files: %s" (string-join files ", ")))
         (agentls--line "  tokens: %s, %s step%s\n" (agentls--usage (plist-get r :usage))
                        (or (plist-get r :steps) 0)
                        (if (eql (plist-get r :steps) 1) "" "s")))))))

(defvar agentls-event-hook nil
  "Functions called with each agentls/event plist, after it is rendered.")

(cl-defmethod eglot-handle-notification
  ((_server agentls-server) (_method (eql agentls/event)) &rest ev)
  "Track and render an agentls/event notification."
  (let ((id (plist-get ev :taskId)))
    (agentls--task id)
    (pcase (plist-get ev :kind)
      ("state"
       (agentls--put id :state (plist-get ev :to))
       (when (equal (plist-get (agentls--task id) :status) "queued")
         (agentls--put id :status "running")))
      ("toolCall" (agentls--put id :message (agentls--tool (plist-get ev :call))))
      ("end"
       (let ((r (plist-get ev :result)))
         (agentls--put id :result r)
         (agentls--put id :status (plist-get r :status))
         (agentls--put id :state "idle")
         (setq agentls--progress nil))))
    (condition-case err
        (agentls--render ev)
      (error (message "agentls: rendering an event failed: %S" err)))
    (run-hook-with-args 'agentls-event-hook ev)
    (force-mode-line-update t)))

;; Eglot 1.9 neither advertises nor shows $/progress; agentls-server does
;; both for itself and leaves newer Eglots' own handling in place.
(cl-defmethod eglot-client-capabilities :around ((_server agentls-server))
  (let* ((caps (cl-call-next-method))
         (window (plist-get caps :window)))
    (unless (plist-get window :workDoneProgress)
      (setq caps (plist-put caps :window (plist-put window :workDoneProgress t))))
    caps))

(cl-defmethod eglot-handle-request
  ((_server agentls-server) (_method (eql window/workDoneProgress/create)) &rest _)
  "Accept a progress token."
  nil)

(cl-defmethod eglot-handle-notification
  ((_server agentls-server) (_method (eql $/progress)) &key _token value)
  "Keep the task's progress message for `agentls-mode-line'."
  (pcase (plist-get value :kind)
    ((or "begin" "report")
     (when-let ((m (plist-get value :message))) (setq agentls--progress m)))
    ("end" (setq agentls--progress nil)))
  (force-mode-line-update t)
  ;; Eglot's catch-all (1.9) or its progress reporter (newer) is next.
  (cl-call-next-method))

;;; Commands

(defun agentls--server ()
  "The agentls Eglot server of this buffer, or of any buffer."
  (let ((s (ignore-errors (eglot-current-server))))
    (if (and s (cl-typep s 'agentls-server))
        s
      (or (cl-loop for servers being the hash-values of eglot--servers-by-project
                   thereis (cl-find-if (lambda (x) (cl-typep x 'agentls-server)) servers))
          (user-error "agentls: no agentls server; see `agentls-eglot-setup' and M-x eglot")))))

(defun agentls--flush (server)
  "Send SERVER the buffer changes Eglot still holds back."
  (when (and agentls-flush-changes (fboundp 'eglot--signal-textDocument/didChange))
    (dolist (b (eglot--managed-buffers server))
      (with-current-buffer b
        (ignore-errors (eglot--signal-textDocument/didChange))))))

(defun agentls--drain (server)
  "Read the messages SERVER sent after the reply `jsonrpc-request' took.
jsonrpc 1.0.x (Emacs 28) leaves the rest of a read unparsed when a
reply ends a synchronous request, so a server request that came in
the same read (workDoneProgress/create, applyEdit) would wait for
the server's next output, which never comes while the server waits."
  (let ((proc (and (fboundp 'jsonrpc--process) (ignore-errors (jsonrpc--process server)))))
    (when (and proc (process-live-p proc) (fboundp 'jsonrpc--process-filter))
      (jsonrpc--process-filter proc ""))))

(defun agentls-command (command &optional args)
  "Run agentls COMMAND (a string) with ARGS (a plist) and return its result."
  (let ((server (agentls--server)))
    (agentls--flush server)
    (unwind-protect
        (jsonrpc-request server :workspace/executeCommand
                         (list :command command
                               :arguments (vector (or args (make-hash-table)))))
      (agentls--drain server))))

(defun agentls--uri (&optional buffer)
  (when-let ((f (buffer-file-name (or buffer (current-buffer)))))
    (eglot--path-to-uri f)))

;;;###autoload
(defun agentls-run (task &optional review beg end)
  "Run TASK with agentls, about the current file and the region (BEG END).
With a prefix argument (REVIEW), the changes are proposed for review
instead of applied.  Returns the task id."
  (interactive
   (append (list (read-string "agentls task: ") (and current-prefix-arg t))
           (when (use-region-p) (list (region-beginning) (region-end)))))
  (when (string-empty-p (string-trim task))
    (user-error "agentls: the task is empty"))
  (let ((args (list :task task)))
    (when-let ((uri (agentls--uri))) (setq args (plist-put args :uri uri)))
    (when (and beg end)
      (setq args (plist-put args :range
                            (list :start (eglot--pos-to-lsp-position beg)
                                  :end (eglot--pos-to-lsp-position end)))))
    (when review (setq args (plist-put args :review t)))
    (when agentls-display-stream
      (display-buffer (agentls-stream-buffer)))
    ;; Before the request: the task's first events may beat its answer.
    (agentls--line "▶ %s%s" task (if review "  [review]" ""))
    (let* ((res (agentls-command "agentls.run" args))
           (id (plist-get res :taskId)))
      (agentls--task id)
      (agentls--put id :task task)
      (agentls--put id :review (and review t))
      (when (equal (plist-get (agentls--task id) :status) "queued")
        (agentls--put id :status "running"))
      (message "agentls: started %s" id)
      id)))

;;;###autoload
(defun agentls-cancel (&optional task-id)
  "Cancel TASK-ID, else the newest running task."
  (interactive)
  (let* ((id (or task-id (agentls--latest #'agentls--running-p)))
         (res (agentls-command "agentls.cancel" (and id (list :taskId id)))))
    (message (if (eq (plist-get res :cancelled) t)
                 (format "agentls: cancelling %s" (or (plist-get res :taskId) id))
               "agentls: no running task to cancel"))
    res))

(defun agentls--status-line (tk)
  (concat (format "%s %-9s %s" (plist-get tk :taskId) (plist-get tk :status)
                  (plist-get tk :task))
          (let ((n (length (plist-get tk :filesChanged))))
            (if (> n 0) (format "  [%d file%s]" n (if (= n 1) "" "s")) ""))
          (format "  tokens %s" (agentls--usage (plist-get tk :usage)))
          (cond ((plist-get tk :summary)
                 (concat "\n    " (agentls--first-line (plist-get tk :summary) 200)))
                ((plist-get tk :error) (concat "\n    error: " (plist-get tk :error)))
                (t ""))
          (if (plist-get tk :transcript)
              (concat "\n    transcript: " (plist-get tk :transcript))
            "")))

;;;###autoload
(defun agentls-status (&optional task-id)
  "Show the server's tasks (or TASK-ID) and return the result."
  (interactive)
  (let* ((res (agentls-command "agentls.status" (and task-id (list :taskId task-id))))
         (tasks (if (plist-member res :tasks) (append (plist-get res :tasks) nil)
                  (list res))))
    (message "%s" (if tasks (mapconcat #'agentls--status-line tasks "\n")
                    "agentls: no tasks yet"))
    res))

(defun agentls--review-target (task-id)
  (or task-id
      (agentls--latest (lambda (p) (and (plist-get p :review)
                                        (not (agentls--running-p p)))))
      (agentls--latest (lambda (p) (not (agentls--running-p p))))
      (user-error "agentls: no finished task")))

;;;###autoload
(defun agentls-accept (&optional this-file task-id)
  "Accept the proposals of the newest review task (or TASK-ID).
With a prefix argument (THIS-FILE), only those in the current file."
  (interactive "P")
  (let* ((id (agentls--review-target task-id))
         (args (list :taskId id)))
    (when this-file (setq args (plist-put args :uri (agentls--uri))))
    (let ((res (agentls-command "agentls.accept" args)))
      (message "agentls.accept %s: %S" id res)
      res)))

;;;###autoload
(defun agentls-reject (&optional this-file task-id)
  "Reject the proposals of the newest review task (or TASK-ID).
With a prefix argument (THIS-FILE), only those in the current file."
  (interactive "P")
  (let* ((id (agentls--review-target task-id))
         (args (list :taskId id)))
    (when this-file (setq args (plist-put args :uri (agentls--uri))))
    (let ((res (agentls-command "agentls.reject" args)))
      (message "agentls.reject %s: %S" id res)
      res)))

;;;###autoload
(defun agentls-undo (&optional task-id)
  "Undo what the newest finished task (or TASK-ID) applied."
  (interactive)
  (let* ((id (or task-id (agentls--latest (lambda (p) (not (agentls--running-p p))))
                 (user-error "agentls: no finished task")))
         (res (agentls-command "agentls.undo" (list :taskId id))))
    (message "agentls.undo %s: %S" id res)
    res))

;;;###autoload
(defun agentls-open-transcript (&optional task-id)
  "Open the Markdown transcript of TASK-ID (default: the newest task).
Returns its buffer."
  (interactive)
  (let* ((id (or task-id (agentls--latest) (user-error "agentls: no task yet")))
         (res (agentls-command "agentls.status" (list :taskId id)))
         (uri (plist-get res :transcript)))
    (unless uri (user-error "agentls: no transcript for %s" id))
    (find-file-other-window (eglot--uri-to-path uri))
    (current-buffer)))

;;;###autoload
(defun agentls-show-stream ()
  "Show the *agentls* event stream."
  (interactive)
  (display-buffer (agentls-stream-buffer)))

(defvar agentls-command-map
  (let ((m (make-sparse-keymap)))
    (define-key m "r" #'agentls-run)
    (define-key m "c" #'agentls-cancel)
    (define-key m "s" #'agentls-status)
    (define-key m "a" #'agentls-accept)
    (define-key m "x" #'agentls-reject)
    (define-key m "u" #'agentls-undo)
    (define-key m "l" #'agentls-show-stream)
    (define-key m "t" #'agentls-open-transcript)
    m)
  "Keys for the agentls commands; bind it to a prefix, e.g.
\(global-set-key (kbd \"C-c a\") agentls-command-map).")
(fset 'agentls-command-map agentls-command-map)

(provide 'agentls)
;;; agentls.el ends here
