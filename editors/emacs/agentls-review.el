;;; agentls-review.el --- Follow-ups, pickers and diff review for agentls  -*- lexical-binding: t; -*-

;; Version: 0.2
;; Package-Requires: ((emacs "28.1"))

;;; Commentary:

;; The parts of agentls.el a user reaches from the conversation:
;;  - `agentls-send-input' (C-c C-c in *agentls*) and `agentls-continue':
;;    a follow-up in the newest task's session;
;;  - `agentls-run-review': a task in review mode;
;;  - `agentls-pick-model': the endpoint's /v1/models (agentls.models);
;;  - `agentls-history': the server's tasks, then transcript / continue /
;;    diff / accept / reject / undo (undo only for tasks that changed files);
;;  - `agentls-review-diff': a review task's proposals in `diff-mode', where
;;    C-c C-a accepts the proposal at point and C-c C-r rejects it; g redraws.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'diff-mode)
(require 'agentls-conn)

(declare-function agentls-command "agentls")
(declare-function agentls-run "agentls")
(declare-function agentls-stream-buffer "agentls")
(declare-function agentls-status-word "agentls")
(declare-function agentls-open-transcript "agentls")
(declare-function agentls-undo "agentls")
(declare-function agentls--latest "agentls")
(declare-function agentls--refresh-info "agentls")
(defvar agentls--tasks)
(defvar agentls--input)
(defvar agentls-model)

;;; Follow-ups

(defun agentls--newest-session ()
  (let ((id (agentls--latest (lambda (p) (plist-get p :session)))))
    (and id (plist-get (cdr (assoc id agentls--tasks)) :session))))

(defun agentls--work-buffer ()
  "A buffer visiting a workspace file, for the editor context."
  (cl-find-if (lambda (b) (buffer-local-value 'agentls-managed-mode b))
              (mapcar #'window-buffer (window-list))))

;;;###autoload
(defun agentls-continue (text)
  "Send TEXT as a follow-up in the newest task's session.
With no task yet, TEXT starts one.  Returns the task id."
  (interactive (list (read-string "agentls follow-up: ")))
  (let ((session (agentls--newest-session)))
    (with-current-buffer (or (agentls--work-buffer) (current-buffer))
      (agentls-run text nil nil nil session))))

;;;###autoload
(defun agentls-send-input ()
  "Send what is typed under the prompt of *agentls* as a follow-up."
  (interactive)
  (with-current-buffer (agentls-stream-buffer)
    (let ((text (string-trim (buffer-substring-no-properties agentls--input (point-max)))))
      (when (string-empty-p text) (user-error "agentls: type a follow-up under the prompt"))
      (let ((inhibit-read-only t))
        (delete-region agentls--input (point-max)))
      (agentls-continue text))))

;;;###autoload
(defun agentls-run-review (task)
  "Run TASK in review mode: its changes are proposed, not applied."
  (interactive (list (agentls-read-task "agentls task (review; C-j: new line): ")))
  (agentls-run task t))

;;; Pickers

;;;###autoload
(defun agentls-pick-model (&optional model)
  "Set the model for the next tasks, picked from the endpoint's /v1/models."
  (interactive)
  (let* ((res (agentls-command "agentls.models"))
         (models (append (plist-get res :models) nil))
         (m (or model (completing-read (format "agentls model (now %s): " (or agentls-model (plist-get res :current)))
                                       models nil t))))
    (unless (member m models) (user-error "agentls: %s is not one of %S" m models))
    (setq agentls-model m)
    (agentls--refresh-info)
    (message "agentls: model for the next tasks: %s" m)
    m))

(defun agentls--history-label (tk)
  (format "%s  %-9s %-20s %s%s" (plist-get tk :taskId) (agentls-state-word tk) (agentls-status-word tk)
          (replace-regexp-in-string "\n" " " (or (plist-get tk :task) ""))
          (let ((files (append (plist-get tk :filesChanged) nil)))
            (if files
                (concat "  [" (mapconcat (lambda (u) (file-relative-name (agentls--uri-to-path u))) files ", ") "]")
              ""))))

(defun agentls-history-actions (tk)
  "What can be done with task TK: undo only when the server can undo it."
  (append '("transcript" "continue" "rewind")
          (cond ((eq (plist-get tk :review) t) '("diff" "accept" "reject"))
                ((if (plist-member tk :undoable)
                     (eq (plist-get tk :undoable) t)
                   (> (length (plist-get tk :filesChanged)) 0))
                 '("undo")))))

;;;###autoload
(defun agentls-history (&optional task-id action)
  "Pick a task from the server's list, then what to do with it.
TASK-ID and ACTION pick without asking."
  (interactive)
  (let* ((tasks (reverse (append (plist-get (agentls-command "agentls.status") :tasks) nil)))
         (labels (mapcar (lambda (tk) (cons (agentls--history-label tk) tk)) tasks)))
    (unless tasks (user-error "agentls: no tasks yet"))
    (let* ((tk (if task-id
                   (cl-find task-id tasks :key (lambda (x) (plist-get x :taskId)) :test #'equal)
                 (cdr (assoc (completing-read "agentls task: " (agentls--in-order labels) nil t) labels))))
           (acts (agentls-history-actions tk))
           (act (or action (completing-read (format "agentls %s: " (plist-get tk :taskId)) acts nil t))))
      (unless (member act acts) (user-error "agentls: %s is not offered for %s" act (plist-get tk :taskId)))
      (pcase act
        ("transcript" (agentls-open-transcript (plist-get tk :taskId)))
        ("continue" (let ((text (read-string "agentls follow-up: ")))
                      (agentls-run text nil nil nil (plist-get tk :session))))
        ("diff" (agentls-review-diff (plist-get tk :taskId)))
        ("accept" (agentls-command "agentls.accept" (list :taskId (plist-get tk :taskId))))
        ("reject" (agentls-command "agentls.reject" (list :taskId (plist-get tk :taskId))))
        ("rewind" (agentls-rewind (plist-get tk :taskId)))
        ("undo" (agentls-undo (plist-get tk :taskId)))))))

;;; Diff review

(defvar-local agentls--review-task nil "The task a review buffer shows.")

(defvar agentls-review-mode-map
  (let ((m (make-sparse-keymap)))
    (define-key m (kbd "C-c C-a") #'agentls-review-accept-hunk)
    (define-key m (kbd "C-c C-r") #'agentls-review-reject-hunk)
    (define-key m (kbd "C-c C-l") #'agentls-review-refresh)
    (define-key m "g" #'agentls-review-refresh)
    m))

(define-minor-mode agentls-review-mode
  "A review task's proposals in `diff-mode': C-c C-a accepts the proposal at
point, C-c C-r rejects it, g (`revert-buffer') or C-c C-l redraws from the
server."
  :lighter " agentls-review" :keymap agentls-review-mode-map
  (when agentls-review-mode
    (setq-local revert-buffer-function (lambda (&rest _) (agentls-review-refresh)))))

(defun agentls--unified (rel old new)
  "A unified diff of OLD and NEW texts of REL, made by diff(1)."
  (let ((a (make-temp-file "agentls-a")) (b (make-temp-file "agentls-b")))
    (unwind-protect
        (progn
          (with-temp-file a (insert old))
          (with-temp-file b (insert new))
          (with-temp-buffer
            (call-process "diff" nil t nil "-u" "--label" (concat "a/" rel) "--label" (concat "b/" rel) a b)
            (buffer-string)))
      (delete-file a) (delete-file b))))

(defun agentls--current-text (path)
  (if-let ((b (find-buffer-visiting path)))
      (with-current-buffer b (save-restriction (widen) (buffer-substring-no-properties (point-min) (point-max))))
    (with-temp-buffer (insert-file-contents path) (buffer-string))))

(defun agentls--review-task-id (task-id)
  (or task-id
      (agentls--latest (lambda (p) (and (plist-get p :review) (plist-get p :result))))
      (user-error "agentls: no finished review task (M-x agentls-run-review)")))

;;;###autoload
(defun agentls-review-diff (&optional task-id)
  "Show review task TASK-ID's proposals (default: the newest) in `diff-mode'.
Returns the buffer."
  (interactive)
  (let* ((id (agentls--review-task-id task-id))
         (uris (append (plist-get (agentls-command "agentls.proposal" (list :taskId id)) :uris) nil))
         (root (agentls-connection-root (agentls-connection-for)))
         (buf (get-buffer-create (format "*agentls review %s*" id))))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (format "# agentls task %s: C-c C-a accepts the change at point, C-c C-r rejects it, g redraws\n" id))
        (dolist (u uris)
          (let* ((path (agentls--uri-to-path u))
                 (p (agentls-command "agentls.proposal" (list :taskId id :uri u))))
            (insert (agentls--unified (file-relative-name path root)
                                      (agentls--current-text path) (plist-get p :proposed)))))
        (when (null uris) (insert "# nothing left to review\n")))
      (diff-mode)
      (setq default-directory root)
      (setq agentls--review-task id)
      (agentls-review-mode 1)
      (setq buffer-read-only t)
      (goto-char (point-min))
      (ignore-errors (diff-hunk-next)))
    (display-buffer buf)
    buf))

(defun agentls-review-show-document (_path)
  "For window/showDocument of a task's .diff: show the live review instead."
  (let ((id (agentls--latest (lambda (p) (plist-get p :review)))))
    (run-at-time 0 nil (lambda () (ignore-errors (agentls-review-diff id))))))

(defun agentls--hunk-at-point ()
  "(FILE . (START . COUNT)) of the hunk at point, in old-file lines."
  (save-excursion
    (diff-beginning-of-hunk t)
    (unless (looking-at "^@@ -\\([0-9]+\\)\\(?:,\\([0-9]+\\)\\)? ")
      (user-error "agentls: not on a hunk"))
    (let ((start (string-to-number (match-string 1)))
          (count (if (match-string 2) (string-to-number (match-string 2)) 1)))
      (re-search-backward "^\\+\\+\\+ b/\\(.*\\)$")
      (cons (match-string-no-properties 1) (cons start count)))))

;; A hunk of the diff may hold several proposals (two changes a few lines
;; apart share their context): the keys act on the one at point, as the
;; server numbers them, never on the diff's hunk as a whole.
(defun agentls--old-line-at-point ()
  "The old file's 0-based line that the diff line at point belongs to."
  (save-excursion
    (let ((here (line-beginning-position)) (n 0) start)
      (diff-beginning-of-hunk t)
      (unless (looking-at "^@@ -\\([0-9]+\\)")
        (user-error "agentls: not on a hunk"))
      (setq start (1- (max 1 (string-to-number (match-string 1)))))
      (forward-line 1)
      (while (< (point) here)
        (unless (eq (char-after) ?+) (setq n (1+ n)))
        (forward-line 1))
      (+ start n))))

(defun agentls--proposal-at-point (task-id)
  "(URI . DIAGNOSTIC): the task's proposal nearest to point, in the hunk's file."
  (let* ((h (agentls--hunk-at-point))
         (path (expand-file-name (car h) default-directory))
         (uri (agentls--path-to-uri path))
         (line (agentls--old-line-at-point))
         (first (1- (cadr h)))
         (last (+ first (max 1 (cddr h))))
         (conn (agentls-connection-for path))
         (best nil) (best-d nil))
    (dolist (d (gethash uri (agentls-connection-diagnostics conn)))
      (let* ((r (plist-get d :range))
             (s (plist-get (plist-get r :start) :line))
             (e (max s (plist-get (plist-get r :end) :line)))
             (dist (cond ((< line s) (- s line)) ((> line e) (- line e)) (t 0))))
        (when (and (equal (plist-get (plist-get d :data) :taskId) task-id)
                   (<= first s) (<= s last)
                   (or (null best-d) (< dist best-d)))
          (setq best d best-d dist))))
    (cons uri best)))

(defun agentls--review-hunk (command)
  (let* ((id agentls--review-task)
         (found (agentls--proposal-at-point id)))
    (unless (cdr found) (user-error "agentls: no proposal of %s here" id))
    (condition-case err
        (agentls-command command (list :taskId id :uri (car found)
                                       :hunk (plist-get (plist-get (cdr found) :data) :hunk)))
      (jsonrpc-error
       (agentls-review-refresh)
       (user-error "agentls: %s" (or (alist-get 'jsonrpc-error-message (cdr err)) (format "%S" err)))))
    (agentls-review-refresh)))

(defun agentls-review-accept-hunk ()
  "Accept the proposals in the hunk at point."
  (interactive)
  (agentls--review-hunk "agentls.accept"))

(defun agentls-review-reject-hunk ()
  "Reject the proposals in the hunk at point."
  (interactive)
  (agentls--review-hunk "agentls.reject"))

(defun agentls-review-refresh ()
  "Redraw this review buffer from the server's current proposals."
  (interactive)
  (when agentls--review-task
    (let ((pt (point)))
      (agentls-review-diff agentls--review-task)
      (goto-char (min pt (point-max))))))

(provide 'agentls-review)
;;; agentls-review.el ends here
